package execute

import (
	"fmt"
	"strings"
	"time"
)

// The texts the dispatcher writes for the model, in one place: the control
// flow decides, these say it. Each text tells the model what happened,
// whether anything ran, and what to do next — call again with a fixed
// call, do something else, or tell the user. Names and words the model
// wrote are quoted and clipped here; every result is then made safe to
// quote (valid UTF-8, none of the host's tags) by [Dispatcher.settle].
// The problems a text embeds ("params is a string; send a JSON object"),
// which events carry as their Detail too, are here as well (problem…);
// only the rewording of the schema validator's own messages stays with
// the validator (validate.go's cleanError).

// Texts for calls the harness itself got wrong: nothing the model can fix.
const (
	textNoSession       = "The harness called the tool dispatcher without a session; this is not fixable by changing the call."
	textSearchNoSession = "The harness called tool_search without a session; this is not fixable by changing the call."
	textSearchPanic     = "tool_search failed inside the harness; nothing more is known. Retry once, or call a tool you already know."
)

// textNoReason stands in for a blocking hook's empty reason.
const textNoReason = "no reason given"

// textDispatchPanic answers a call during which the dispatcher panicked.
func textDispatchPanic(target string) string {
	return fmt.Sprintf("The call of %q failed inside the harness's tool dispatcher; nothing more is known. Retry once, or use another tool.", clip(target, 80))
}

// textRecursion answers defer_execute naming defer_execute or tool_search.
func textRecursion(target string) string {
	return fmt.Sprintf("defer_execute cannot call %s. Call %s directly; use defer_execute only for the deferred tools listed in tool_search's index: defer_execute {\"tool_name\":\"<tool name>\",\"params\":{...}}.", target, target)
}

// textBadWrapper answers defer_execute arguments that name no tool usably.
func textBadWrapper(problem string) string {
	return fmt.Sprintf("Invalid defer_execute call: %s. Nothing was run. A correct call looks like: defer_execute {\"tool_name\":\"<exact tool name from the tool_search index>\",\"params\":{<the tool's parameters>}}.", problem)
}

// textBadArgs answers a direct call whose arguments are no usable object.
func textBadArgs(target, problem string) string {
	return fmt.Sprintf("Invalid call of %q: %s. Nothing was run. Send the tool's parameters as one JSON object, e.g. {\"name\":\"value\"}.", clip(target, 80), problem)
}

// textUnknown answers a call of a name that is unknown or hidden (the two
// read the same), with the closest visible names.
func textUnknown(target string, closest []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Unknown tool %q.", clip(target, 80))
	if len(closest) > 0 {
		b.WriteString(" Did you mean ")
		for i, n := range closest {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q", n)
		}
		b.WriteString("?")
	}
	b.WriteString(" Nothing was run. Call a tool by its exact name: a tool from your tool list directly, or a deferred tool from the tool_search index as defer_execute {\"tool_name\":\"<name>\",\"params\":{...}} after loading its schema with tool_search.")
	return b.String()
}

// textAmbiguous answers defer_execute naming a short name several tools
// share; names are their full names, sorted.
func textAmbiguous(target string, names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return fmt.Sprintf("%q is the short name of %d tools: %s. Nothing was run. Call defer_execute again with the full name of the one you mean, e.g. {\"tool_name\":%q,\"params\":{...}}.",
		clip(target, 80), len(names), strings.Join(quoted, ", "), names[0])
}

// textRemoved answers a call of a tool that left the session's tool set.
func textRemoved(target string) string {
	return fmt.Sprintf("Tool %q was removed during this session: its server no longer offers it. Nothing was run. Do not call it again; use another tool, or find one with tool_search.", clip(target, 80))
}

// textDenied answers a call a Deny rule (or a Deny default) refused.
func textDenied(target string) string {
	return fmt.Sprintf("Permission denied: the harness's rules do not allow %q. Nothing was run. Do not retry it; do the task another way, or tell the user what you wanted to do.", target)
}

// textLoadDenied answers a call of a deferred tool whose schema was never
// loaded, in a session whose rules deny tool_search: the answer would carry
// the schema, which is a load.
func textLoadDenied(target string) string {
	return fmt.Sprintf("Permission denied: %q is a deferred tool whose schema has not been loaded, and the harness's rules do not allow loading schemas (tool_search) in this session. Nothing was run. Do not retry it; use the tools in your tool list, or tell the user what you wanted to do.", target)
}

// textUnloaded answers a call of a deferred tool whose schema had not
// been loaded: the schema, loaded now, what was wrong with the params
// sent, and a correct call.
func textUnloaded(target string, schema []byte, problems []string, correct string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tool %q is deferred and its schema had not been loaded, so nothing was run. Its schema, loaded now:\n%s\n", target, schema)
	writeList(&b, "Problems with the params you sent:", problems)
	fmt.Fprintf(&b, "Call it again with params that match this schema. %s", correct)
	return b.String()
}

// textBadParams answers params that are not a JSON object.
func textBadParams(target, problem, correct string) string {
	return fmt.Sprintf("Invalid params for %q: %s. Nothing was run. %s", target, problem, correct)
}

// textInvalid answers params that fail the tool's schema: the violations,
// the schema and a correct call.
func textInvalid(target string, violations []string, schema []byte, correct string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Invalid params for %q; nothing was run.\n", target)
	writeList(&b, "", violations)
	fmt.Fprintf(&b, "Expected schema:\n%s\n%s", schema, correct)
	return b.String()
}

// writeList writes items as a list under title, at most [maxViolations]
// of them.
func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	if title != "" {
		b.WriteString(title)
		b.WriteByte('\n')
	}
	for i, s := range items {
		if i == maxViolations {
			fmt.Fprintf(b, "- and %d more\n", len(items)-maxViolations)
			break
		}
		b.WriteString("- ")
		b.WriteString(s)
		b.WriteByte('\n')
	}
}

// textCorrectCall shows the shape of a correct call of target, through
// defer_execute when wrapped, with example params.
func textCorrectCall(target, example string, wrapped bool) string {
	if wrapped {
		return fmt.Sprintf("A correct call looks like: defer_execute {\"tool_name\":%q,\"params\":%s}", target, example)
	}
	return fmt.Sprintf("A correct call looks like: %s with arguments %s", target, example)
}

// What failed on the harness's side, in [textHostError].
const (
	hostSchemaUnusable    = "its input schema cannot be used for validation"
	hostDefaults          = "its schema's defaults cannot be applied"
	hostInject            = "the harness could not supply its context"
	hostFields            = "the harness did not supply valid values for its host-filled fields"
	hostEncode            = "its params could not be encoded"
	hostHookFailed        = "a harness hook failed"
	hostHookRewrite       = "a harness hook rewrote its params into invalid ones"
	hostSearchHookRewrite = "a harness hook rewrote its arguments into invalid ones"
)

// textHostError answers a call the harness's side failed (what says how:
// one of the host… constants).
func textHostError(target, what string) string {
	return fmt.Sprintf("Tool %q could not run: %s. This is a problem on the harness's side, not fixable by changing the params; nothing was run. Tell the user, or use another tool.", target, what)
}

// textNoApprover answers a call an Ask rule matched when nobody can approve.
func textNoApprover(target string) string {
	return fmt.Sprintf("Calling %q needs the user's approval and the harness cannot ask for it here. Nothing was run. Do the task another way, or tell the user what you wanted to do.", target)
}

// textNotApproved answers a call the approver refused.
func textNotApproved(target string) string {
	return fmt.Sprintf("The user did not approve the call of %q. Nothing was run. Do not retry the same call; ask the user how to proceed, or do the task another way.", target)
}

// textBlocked answers a call a before-call hook blocked.
func textBlocked(target, reason string) string {
	return fmt.Sprintf("The harness blocked the call of %q: %s. Nothing was run.", target, reason)
}

// textSearchBlocked answers a tool_search a before-call hook blocked.
func textSearchBlocked(reason string) string {
	return fmt.Sprintf("The harness blocked this tool_search: %s. Nothing was searched.", reason)
}

// textNoHandler answers a call of a tool without a handler.
func textNoHandler(target string) string {
	return fmt.Sprintf("Tool %q has no implementation in this harness, so it cannot be called here. Nothing was run; use another tool.", target)
}

// textCancelledBefore answers a call whose context ended before the
// handler ran.
func textCancelledBefore(target string, err error) string {
	return fmt.Sprintf("The call of %q was cancelled before it ran (%v).", target, err)
}

// textTimedOut answers a call whose handler did not return within the
// call timeout and its grace period.
func textTimedOut(target string, timeout time.Duration) string {
	return fmt.Sprintf("Tool %q did not finish within %s, so the harness stopped waiting. It may still be running, and what it did so far is unknown. Retry with a smaller request, or use another tool.", target, timeout)
}

// textCancelledDuring answers a call whose context ended while the
// handler ran, which did not return.
func textCancelledDuring(target string, cause error) string {
	return fmt.Sprintf("The call of %q was cancelled before it finished (%v); what it did so far is unknown.", target, cause)
}

// textHandlerPanic answers a call whose handler panicked.
func textHandlerPanic(target string) string {
	return fmt.Sprintf("Tool %q failed with an internal error; nothing more is known. You may retry once with different params, or use another tool.", target)
}

// textHandlerError is the result of a handler that returned an error:
// its own text, if any, then the error (injected values redacted).
func textHandlerError(text, err string) string {
	if text != "" {
		return text + "\n\n" + "Error: " + err
	}
	return "Error: " + err
}

// textTruncated is a result cut to the size bound: the kept part and how
// to get the rest (a narrower call, naming the tool's paging parameters).
func textTruncated(cut string, total int, target string, paging []string) string {
	how := fmt.Sprintf("call %s again with a narrower request", target)
	if len(paging) > 0 {
		how += " (it accepts " + quoteList(paging, nil) + ")"
	}
	return fmt.Sprintf("%s\n\n[Output truncated: showing the first %d of %d bytes. To get the rest, %s.]", cut, len(cut), total, how)
}

// textGuided appends the harness's guidance for a tool to its result.
func textGuided(text, guidance string) string { return text + "\n\n" + guidance }

// Problems with the arguments' bytes, found before they are parsed.
const problemNotUTF8 = "the arguments are not valid UTF-8; send them as JSON text"

func problemTooLarge(n, max int) string {
	return fmt.Sprintf("the arguments are %d bytes, over the limit of %d; send less data per call (split the work into several calls)", n, max)
}

func problemTooDeep(max int) string {
	return fmt.Sprintf("the arguments nest deeper than %d levels of objects and arrays; flatten them", max)
}

// Problems with params that are not a JSON object.
const (
	problemParamsNull    = "params is null; send a JSON object ({} when the tool needs no params)"
	problemParamsString  = "params is a string; send a JSON object"
	problemParamsNotJSON = "arguments are not valid JSON; send a JSON object"
	problemParamsArray   = "params is an array; send a JSON object whose keys are the tool's parameter names"
)

func problemParamsJSONString(inner string) string {
	return "params is a string holding JSON; send the object itself, not a string: " + clip(inner, 200) + " without the surrounding quotes"
}

// problemParamsKind: params is a boolean or a number.
func problemParamsKind(kind string) string {
	return "params is a " + kind + "; send a JSON object whose keys are the tool's parameter names"
}

// Problems with defer_execute's own arguments.
const (
	problemWrapperEmpty      = "defer_execute needs arguments"
	problemWrapperJSONString = "the arguments are a string holding JSON; send the object itself"
	problemWrapperNotJSON    = "the arguments are not valid JSON"
	problemNoToolName        = `"tool_name" is missing`
	problemBadToolName       = `"tool_name" must be a non-empty string: the exact name of a tool`
)

func problemWrapperKind(kind string) string {
	return "the arguments are a " + kind + ", not an object"
}

func problemWrapperBadObject(err error) string {
	return "the arguments are not a valid JSON object (" + clip(err.Error(), 120) + ")"
}

// problemParamsBesideName: the tool's params written next to tool_name;
// fixed is the call as it should have been.
func problemParamsBesideName(keys []string, fixed []byte) string {
	return fmt.Sprintf("the tool's params must go inside \"params\", not next to \"tool_name\" (found %s); send defer_execute %s", quoteKeys(keys), clip(string(fixed), 300))
}

func problemExtraKeys(keys []string) string {
	return fmt.Sprintf("unexpected keys %s next to \"tool_name\" and \"params\"; put every parameter inside \"params\"", quoteKeys(keys))
}

// problemAnd joins a problem found first to the one found under it.
func problemAnd(first, then string) string { return first + "; and " + then }

// Schema violations the dispatcher words itself.
const problemRequired = "required property is missing"

func problemUnknownProperty(props []string, skip map[string]bool) string {
	return "unknown property; the schema allows " + quoteList(props, skip)
}

func problemBigInteger(n string) string {
	return fmt.Sprintf("the integer %s is beyond ±9007199254740992 (2^53), where this tool's schema's multipleOf cannot be checked exactly; send an integer within that range", n)
}

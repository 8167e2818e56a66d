package execute

import (
	"context"
	"log/slog"
)

// EventKind names one decision of the dispatcher: the same lowercase word
// as in its log line ("execute: denied"), [Event.String] and
// integration/otel's span events. The dispatcher reports these kinds:
//
//   - "bad_input": the arguments were not a usable JSON object (or too
//     large, too deep, missing tool_name ...; Detail says which). Nothing
//     ran.
//   - "unknown_tool": the name is unknown or hidden; the two are not told
//     apart. Nothing ran.
//   - "recursion": defer_execute named defer_execute or tool_search.
//     Nothing ran.
//   - "unloaded": a deferred tool was called before its schema was
//     loaded; the schema was returned and marked loaded. Nothing ran.
//   - "invalid": params failed schema validation; Pointer is the first
//     violation. Nothing ran.
//   - "injected_ignored": the model supplied a value for a host-injected
//     field; it was overwritten.
//   - "host_error": the host side failed (injection, an unresolvable
//     schema, a hook's invalid rewrite, a hook panic). Nothing ran.
//   - "allowed": permission granted; Rule names the rule or "default".
//   - "approved": an Ask rule matched and the approver said yes.
//   - "rejected": an Ask rule matched and the approver said no (or there
//     was no approver, or it failed).
//   - "denied": a Deny rule (or a Deny default) matched.
//   - "blocked": a before-call hook blocked the call.
//   - "rewritten": a before-call hook rewrote params.
//   - "no_handler": the tool has no handler in this harness.
//   - "handler_error": the handler returned an error.
//   - "panic": the handler panicked; the panic became an error result.
//   - "replaced": an after-call hook changed the result, or (with no
//     Hook) invalid UTF-8 in the result was replaced with U+FFFD.
//   - "truncated": the result was cut to [Options.MaxResultBytes].
//   - "completed": the handler ran; IsError is in Detail.
//   - "timeout": [Options.CallTimeout] passed while the handler ran
//     (Detail says whether it returned within the grace period, and so
//     whether its result was used), or the caller's context ended and the
//     handler did not return; without a result the call answered a
//     timeout result and the handler's goroutine was left to finish on
//     its own.
//   - "searched": a tool_search call ran; Queries holds what it asked for
//     and Loaded the names whose schemas it loaded. Detail ends with what
//     a ranking said of the search, such as search.Hybrid answering with
//     the lexical ranking alone because its second ranking failed.
//   - "removed_tool": the tool left the session's tool set (its server no
//     longer offers it); the call was answered as removed. Nothing ran.
//   - "tool_changed": a tool's definition changed under a session; the
//     session keeps the one it showed until the harness approves the
//     change. Reported by the session (request.Session.Sync), not by a
//     call.
//   - "rule_unmatched": a permission rule or hook pattern selects no tool
//     of a new session (request.NewSession; the tools of a configured
//     pending server count as tools). Rule is the rule, Detail says
//     which names are close. A misspelt Deny leaves the tool it meant
//     callable: log it.
//   - "cache_miss": a request read less from the provider's prompt cache
//     than the previous one wrote and read; Detail gives the cause in
//     words. Reported by a usage ledger that follows the session
//     (budget.FollowSession), not by a call.
//
// Compare a kind with its constant: ev.Kind == execute.EventDenied. The
// words are stable: logs and spans carry them.
type EventKind string

// The decisions a [Dispatcher] reports, as listed on [EventKind], with the
// word each one carries.
const (
	EventBadInput        EventKind = "bad_input"
	EventUnknownTool     EventKind = "unknown_tool"
	EventRecursion       EventKind = "recursion"
	EventUnloaded        EventKind = "unloaded"
	EventInvalid         EventKind = "invalid"
	EventInjectedIgnored EventKind = "injected_ignored"
	EventHostError       EventKind = "host_error"
	EventAllowed         EventKind = "allowed"
	EventApproved        EventKind = "approved"
	EventRejected        EventKind = "rejected"
	EventDenied          EventKind = "denied"
	EventBlocked         EventKind = "blocked"
	EventRewritten       EventKind = "rewritten"
	EventNoHandler       EventKind = "no_handler"
	EventHandlerError    EventKind = "handler_error"
	EventPanic           EventKind = "panic"
	EventReplaced        EventKind = "replaced"
	EventTruncated       EventKind = "truncated"
	EventCompleted       EventKind = "completed"
	EventTimeout         EventKind = "timeout"
	EventSearched        EventKind = "searched"
	EventRemovedTool     EventKind = "removed_tool"
	EventToolChanged     EventKind = "tool_changed"
	EventRuleUnmatched   EventKind = "rule_unmatched"
	EventCacheMiss       EventKind = "cache_miss"
)

// Event is one decision of the dispatcher, for audit: what the model tried,
// including calls a mode made impossible.
type Event struct {
	Kind EventKind
	// Session is the session's ID.
	Session string
	// Tool is the target tool's name as the model wrote it (clipped to 80
	// bytes): for defer_execute calls, the tool_name, never "defer_execute".
	Tool string
	// Via is "defer_execute" when the call came through the wrapper, else "".
	Via string
	// Rule is the permission rule that decided ("Deny(ImageGen)"), or
	// "default" when none matched.
	Rule string
	// Hook is the name of the hook that blocked, rewrote or replaced.
	Hook string
	// Pointer is the JSON pointer of the first validation violation.
	Pointer string
	// Detail says more, in words.
	Detail string
	// CallID is the provider's ID of the call ([WithCallID]), or "".
	CallID string
	// Queries are a search's queries (exact loads as "select:NAME,..."),
	// each clipped to 200 bytes; only on "searched".
	Queries []string
	// Loaded are the names whose schemas a search loaded, sorted; only on
	// "searched".
	Loaded []string
}

func (k EventKind) level() slog.Level {
	switch k {
	case EventAllowed, EventCompleted:
		return slog.LevelDebug
	case EventHostError, EventPanic:
		return slog.LevelError
	case EventDenied, EventRejected, EventBlocked, EventHandlerError, EventTimeout, EventToolChanged, EventRuleUnmatched, EventCacheMiss:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

func (d *Dispatcher) emit(ctx context.Context, ev Event) {
	if d.opts.Observer != nil {
		d.opts.Observer.Event(ctx, ev)
	}
}

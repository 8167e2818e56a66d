package execute

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/searchnote"
	"github.com/toolshelf/toolshelf/registry"
)

// search runs a tool_search call through the guards every call passes:
// the permission rules on the name tool_search (Deny(tool_search) answers
// denied; an Ask rule asks the approver, with the search's arguments as
// its params), the before-call hooks whose pattern matches tool_search (a
// hook may block the search or rewrite its arguments), run, and the
// after-call hooks (which may replace the result, to filter it). An
// "searched" reports the queries and the names the search loaded.
// Like [Dispatcher.callTool] it never panics and answers every failure with a
// model-facing error result.
//
// reason is empty for the model's call, and names the session's own loads
// otherwise ([Dispatcher.Load]): the event's Detail starts with it.
func (d *Dispatcher) search(ctx context.Context, s Session, args json.RawMessage, run SearchFunc, reason string) (res registry.Result) {
	name := registry.ToolSearchName
	c := &call{s: s, target: name, id: clip(callID(ctx), 200)}
	ctx = d.begin(ctx, s, name, c.id)
	defer d.settle(ctx, c, &res, true)
	if s == nil || run == nil {
		d.emit(ctx, Event{Kind: EventHostError, Tool: name, Detail: "nil session or search function"})
		return errResult(textSearchNoSession)
	}
	c.sid = s.ID()
	if p := scanBounds(args, d.opts.MaxParamsBytes, d.opts.MaxDepth+1); p != "" {
		return d.badInput(ctx, c, p)
	}
	t := searchTool(s)
	c.t = t
	if res, ok := d.permission(ctx, c, args); !ok {
		return res
	}
	cl := &Call{Session: c.sid, Tool: t, Name: name, ID: c.id, Params: slices.Clone(args)}
	hooks := d.hooksFor(name, t)
	for _, h := range hooks {
		if h.Before == nil {
			continue
		}
		if res, ok := d.beforeSearch(ctx, c, h, cl); !ok {
			return res
		}
	}
	rctx, notes := searchnote.With(ctx)
	res, loaded := run(rctx, cl.Params)
	detail := fmt.Sprintf("is_error=%t bytes=%d", res.IsError, len(res.Text))
	if reason != "" {
		detail = reason + " " + detail
	}
	if n := notes.String(); n != "" {
		detail += "; " + n // a ranking degraded (search.Hybrid's second one failed)
	}
	d.report(ctx, c, Event{
		Kind:    EventSearched,
		Queries: searchQueries(cl.Params),
		Loaded:  slices.Sorted(slices.Values(loaded)),
		Detail:  detail,
	})
	for _, h := range hooks {
		if h.After != nil {
			res = d.after(ctx, c, h, cl, res)
		}
	}
	return res
}

// beforeSearch runs one before-call hook on a search. A rewrite must be a
// JSON object within the bounds; the searcher checks the rest, as it does
// the model's arguments.
func (d *Dispatcher) beforeSearch(ctx context.Context, c *call, h Hook, cl *Call) (registry.Result, bool) {
	var vd Verdict
	if err := safely(func() { vd = h.Before(ctx, cl) }); err != nil {
		return d.hostError(ctx, c, hostHookFailed, fmt.Sprintf("hook %q: %v", h.Name, err)), false
	}
	if vd.Block {
		d.report(ctx, c, Event{Kind: EventBlocked, Hook: h.Name, Detail: vd.Reason})
		reason := strings.TrimSpace(vd.Reason)
		if reason == "" {
			reason = textNoReason
		}
		return errResult(textSearchBlocked(reason)), false
	}
	if vd.Params == nil {
		return registry.Result{}, true
	}
	problem := scanBounds(vd.Params, d.opts.MaxParamsBytes, d.opts.MaxDepth)
	if problem == "" {
		problem = shapeProblem(vd.Params)
	}
	if problem != "" {
		return d.hostError(ctx, c, hostSearchHookRewrite, fmt.Sprintf("hook %q: %s", h.Name, problem)), false
	}
	d.report(ctx, c, Event{Kind: EventRewritten, Hook: h.Name})
	cl.Params = slices.Clone(vd.Params)
	return registry.Result{}, true
}

// Bounds of the queries an event carries.
const (
	maxEventQueries    = 16
	maxEventQueryBytes = 200
)

// searchQueries returns what a search asked for: its queries, and its
// exact loads as one "select:NAME,..." entry. Arguments it cannot read
// give none; the searcher answers them.
func searchQueries(args json.RawMessage) []string {
	var a struct {
		Queries   json.RawMessage `json:"queries"`
		ToolNames json.RawMessage `json:"tool_names"`
	}
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	out := strList(a.Queries)
	if names := strList(a.ToolNames); len(names) > 0 {
		out = append(out, "select:"+strings.Join(names, ","))
	}
	if len(out) > maxEventQueries {
		out = out[:maxEventQueries]
	}
	for i, q := range out {
		out[i] = clip(q, maxEventQueryBytes)
	}
	return out
}

// strList reads a string or an array of strings; anything else is none.
func strList(v json.RawMessage) []string {
	var one string
	if json.Unmarshal(v, &one) == nil {
		if one == "" {
			return nil
		}
		return []string{one}
	}
	var many []string
	if json.Unmarshal(v, &many) == nil {
		return many
	}
	return nil
}

// searchTool is tool_search as rules and hooks see it: the session's
// definition, with the library's own annotations — it reads the local
// catalog and changes nothing but what the model has loaded — so that
// Ask(@destructive) or Deny(@openworld) never catches a search.
func searchTool(s Session) *registry.Tool {
	var st registry.Tool
	if t, _, ok := s.Lookup(registry.ToolSearchName); ok && t != nil {
		st = *t
	}
	st.Name, st.OriginalName, st.Source = registry.ToolSearchName, registry.ToolSearchName, registry.SourceBuiltin
	yes, no := true, false
	st.Annotations = &registry.Annotations{ReadOnlyHint: &yes, DestructiveHint: &no, IdempotentHint: &yes, OpenWorldHint: &no}
	return &st
}

package execute

import (
	"context"
	"encoding/json"

	"github.com/toolshelf/toolshelf/registry"
)

// A Session is what the dispatcher needs from a conversation: its id and
// the tools it can see. A request.Session implements it for its own calls
// ([request.Session.Call] and Session.Answer both run [Dispatcher.Call]); a
// harness that drives a dispatcher without one (a test, an MCP server that
// forwards calls) supplies its own.
type Session interface {
	// ID identifies the session in events, logs and hooks.
	ID() string
	// Lookup returns a tool the session can see (resident, deferred, or
	// self-built in this session). Hidden and unknown tools both report
	// ok == false: the dispatcher cannot tell them apart, by design.
	// deferred reports whether the tool's schema is outside tools[].
	Lookup(name string) (t *registry.Tool, deferred bool, ok bool)
	// Loaded reports whether a deferred tool's schema was loaded.
	Loaded(name string) bool
	// MarkLoaded records that the model has now seen name's schema.
	MarkLoaded(name string)
	// VisibleNames returns every name the session can see, sorted; the
	// dispatcher suggests the closest ones for an unknown name.
	VisibleNames() []string
}

// A LiveSession is a [Session] whose tool set follows its registry (see
// request.Session.Sync): a tool that left it is removed, which the
// dispatcher answers as such rather than as an unknown name, so that the
// model stops looking for it instead of guessing at spellings; and a short
// name its tool_search index announced stays bound to the tool it was
// announced for, so that a tool of the same short name arriving from
// another server never receives the call.
type LiveSession interface {
	Session
	// Removed reports whether name was in the session's tool set and left
	// it. Lookup reports such a tool as not found.
	Removed(name string) bool
	// BoundName returns the full name the session's index announced under
	// the short name short, whether or not that tool is still there.
	BoundName(short string) (full string, ok bool)
}

// A SearchFunc runs one tool_search call with its arguments (a hook may
// have rewritten them) and returns its result and the names whose schemas
// it loaded.
type SearchFunc func(ctx context.Context, args json.RawMessage) (res registry.Result, loaded []string)

// Call dispatches one call in session s. name is the name the model
// called: either defer_execute, whose args are {"tool_name": ...,
// "params": ...}, or a tool's own name, whose args are its params. The
// result is what the model reads; failures of any kind are error results,
// never panics. A request.Session runs its calls here.
func (d *Dispatcher) Call(ctx context.Context, s Session, name string, args json.RawMessage) registry.Result {
	return d.callTool(ctx, s, name, args)
}

// Search runs a tool_search call through the guards every call passes
// (permission rules on the name tool_search, hooks, an event with its
// queries and the names it loaded); run does the search.
func (d *Dispatcher) Search(ctx context.Context, s Session, args json.RawMessage, run SearchFunc) registry.Result {
	return d.search(ctx, s, args, run, "")
}

// Load runs a load of schemas that the session makes on its own, not a
// call of the model — a preload of the tools a user message names, the
// loaded set of a restored conversation — through the same guards as a
// tool_search call: the permission rules on the name tool_search
// (Deny(tool_search) refuses it), the hooks whose pattern matches
// tool_search, which see the arguments {"tool_names": names} and may block
// or narrow them, and the "searched" event, whose Detail starts with
// reason ("preload", "restore") so that the harness can tell it from the
// model's search. run does the load with the arguments the hooks left; a
// result with IsError set means nothing was loaded.
func (d *Dispatcher) Load(ctx context.Context, s Session, reason string, names []string, run SearchFunc) registry.Result {
	args, err := json.Marshal(struct {
		ToolNames []string `json:"tool_names"`
	}{names})
	if err != nil { // a []string always marshals
		return errResult(textSearchNoSession)
	}
	return d.search(ctx, s, args, run, reason)
}

// Denied reports whether the rules deny every call of t, and names the
// rule ("Deny(mcp__vault__*)", or "default"): a session leaves such a tool
// out of tools[], the tool_search index and search results, and a harness
// can say why a tool is absent.
func (d *Dispatcher) Denied(t *registry.Tool) (rule string, denied bool) { return d.deniesAll(t) }

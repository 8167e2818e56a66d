// Package dispatch is the hand-off between package request's sessions and
// package execute's dispatcher. A harness configures an
// *execute.Dispatcher (execute.New) and gives it to request.Config; the
// session then runs every tool call, tool_search and tool-change report
// through it with [Of]. What the dispatcher needs of a session ([Session],
// [LiveSession]), how it runs a search ([SearchFunc]) and defer_execute's
// definition ([Definition]) live here so that they stay off execute's
// public API: a harness never calls the dispatcher itself.
//
// Users: package execute (implements [Dispatcher] and sets [Of]), package
// request (its sessions implement [Session] and call [Of]), and tests of
// toolshelf's own stages (execute, budget, integration/mcp) that drive the
// dispatcher without a request.Session.
package dispatch

import (
	"context"
	"encoding/json"

	"github.com/toolshelf/toolshelf/registry"
)

// Session is what the dispatcher needs from a conversation. Package
// request's sessions implement it; tests may supply their own.
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
// model stops looking for it instead of guessing at spellings.
type LiveSession interface {
	Session
	// Removed reports whether name was in the session's tool set and left
	// it. Lookup reports such a tool as not found.
	Removed(name string) bool
}

// A BoundNames session binds the short names its tool_search index
// announced: a short name resolves to the tool the index listed it for,
// even after that tool left, never to another server's tool of the same
// short name.
type BoundNames interface {
	// BoundName returns the full name the index announced under short.
	BoundName(short string) (full string, ok bool)
}

// A SearchFunc runs one tool_search call with its arguments (a hook may
// have rewritten them) and returns its result and the names whose schemas
// it loaded.
type SearchFunc func(ctx context.Context, args json.RawMessage) (res registry.Result, loaded []string)

// Dispatcher is what a session runs of an *execute.Dispatcher.
type Dispatcher interface {
	// Call dispatches one call in session s. name is the name the model
	// called: either defer_execute, whose args are {"tool_name": ...,
	// "params": ...}, or a tool's own name, whose args are its params. The
	// result is what the model reads; failures of any kind are error
	// results, never panics.
	Call(ctx context.Context, s Session, name string, args json.RawMessage) registry.Result
	// Search runs a tool_search call through the guards every call passes
	// (permission rules on the name tool_search, hooks, an event with its
	// queries and the names it loaded); run does the search.
	Search(ctx context.Context, s Session, args json.RawMessage, run SearchFunc) registry.Result
	// Denied reports whether the rules deny every call of t, and names the
	// rule ("Deny(mcp__vault__*)", or "default"): such a tool is left out
	// of tools[], the tool_search index and search results.
	Denied(t *registry.Tool) (rule string, denied bool)
	// ToolChanged reports, as the dispatcher's own decisions are (the
	// event "tool_changed"), that tool's definition changed under
	// session; detail says how.
	ToolChanged(ctx context.Context, session, tool, detail string)
}

// Of returns the [Dispatcher] of d, a non-nil *execute.Dispatcher. Package
// execute sets it when it is initialised; any package that holds an
// *execute.Dispatcher imports execute, so it is set before it is used.
var Of func(d any) Dispatcher

package request

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// toolState owns a session's tool state beyond its frozen prefix (issue
// 42): the tools that are the session's own (self-built, arrived,
// restored), the standing decided for each ([standings], view.go), the
// index tool_search keeps over them, and the loaded set. It is the one
// writer of the loaded set: every load — tool_search, a preload, Client
// mode's search, a restored set, the dispatcher's answer to a call of a
// tool not loaded — ends in [toolState.markLoaded], and all but the last
// reach it only through the dispatcher's guard ([Session.guardLoad]); the
// dispatcher's own load passed its guard already. Fields other than loaded
// are guarded by the session's mutex; loaded is safe for concurrent use,
// as a search reads it without the session's lock.
type toolState struct {
	// selfBuilt are the tools the model wrote (RegisterSelfBuilt, or read
	// back from stored state), arrived the tools Sync adopted from the
	// registry (or read back: restored, hidden until a Sync confirms them,
	// tools.live.unconfirmed); each in the order it entered. The two kinds
	// are kept apart: an arrival is never taken for a self-built tool.
	selfBuilt, arrived []*registry.Tool
	// std is the standing decided for every tool beyond the frozen plan.
	std standings
	// overlay is tool_search's index over the shown own tools.
	overlay toolsearch.Overlay
	// live is what the session adopted from its registry since it froze
	// (nil until a change; live.go).
	live   *liveSet
	loaded *toolsearch.LoadedSet
}

func newToolState() toolState { return toolState{loaded: toolsearch.NewLoadedSet()} }

// own reports whether the session has tools of its own.
func (ts *toolState) own() bool { return len(ts.selfBuilt)+len(ts.arrived) > 0 }

// ownTool returns the session's own tool named name, of either kind.
func (ts *toolState) ownTool(name string) (*registry.Tool, bool) {
	for _, list := range [][]*registry.Tool{ts.selfBuilt, ts.arrived} {
		for _, t := range list {
			if t.Name == name {
				return t, true
			}
		}
	}
	return nil, false
}

// markLoaded records that the model has seen names' schemas: the loaded
// set's one write.
func (ts *toolState) markLoaded(names ...string) {
	for _, n := range names {
		ts.loaded.Add(n)
	}
}

// unload forgets name's schema: its definition changed, and the model must
// load the new one.
func (ts *toolState) unload(name string) { ts.loaded.Forget(name) }

// isLoaded reports whether name's schema was loaded.
func (ts *toolState) isLoaded(name string) bool { return ts.loaded.Has(name) }

// loadedNames returns the loaded names, sorted.
func (ts *toolState) loadedNames() []string { return ts.loaded.Names() }

// searchScope is the one place a tool_search scope is built, from the
// view: the frozen prefix's shortened tools and their shared index, or —
// when the session shows tools of its own (self-built, arrived) or
// updated definitions of frozen deferred tools (the overlay replaces the
// shared index's entry) — those first, over the session's own index; the
// removed names the model may hear of and the servers still pending; and
// the loaded set, read only. s.mu must be held; the view's slices are
// replaced, never written (announced has no spare capacity, so appending
// to it copies), so the scope is read after the lock is released.
func (s *Session) searchScope(f *frozenPrefix) toolsearch.Scope {
	announced := slices.Clip(s.tools.std.shown)
	if len(s.tools.std.updated) > 0 {
		announced = slices.Concat(announced, s.tools.std.updated)
	}
	pending, removed := s.pendingServers(), s.tools.std.gone
	// Tools whose description was cut to the provider's cap are searchable
	// too: their note points here for the full text. They are the same
	// for every session sharing the prefix, which shares their overlay
	// too; a session with its own tools keeps its own.
	sc := toolsearch.Scope{Loaded: s.tools.loaded, Announced: f.shortened, Overlay: &f.overlay, Pending: pending, Removed: removed}
	if f.base != nil {
		// A view change's resident tools outside tools[] (viewchange.go).
		announced = slices.Concat(announced, s.viewExtraShown())
	}
	if len(announced) > 0 {
		sc.Announced, sc.Overlay = append(announced, f.shortened...), &s.tools.overlay
	}
	return sc
}

// guardLoad runs a load of schemas through the dispatcher's guard on
// tool_search — its permission rules, hooks and "searched" event — and
// reports whether it went through: the model's call (args set, reason
// empty) or the session's own load of names (reason "preload" or
// "restore"). run does the load and returns what it loaded; its names are
// what the caller may then mark loaded. Without a dispatcher there is no
// guard, and run runs as is. It is the only caller of the dispatcher's
// Search and Load, and never holds s.mu: hooks are the harness's code.
func (s *Session) guardLoad(ctx context.Context, reason string, args json.RawMessage, names []string, run execute.SearchFunc) (registry.Result, []string, bool) {
	var loaded []string
	ran := false
	wrapped := func(ctx context.Context, args json.RawMessage) (registry.Result, []string) {
		res, n := run(ctx, args)
		loaded, ran = n, true
		return res, n
	}
	var res registry.Result
	if reason != "" {
		args, _ = json.Marshal(struct {
			ToolNames []string `json:"tool_names"`
		}{names}) // a []string always marshals
	}
	switch d := s.cfg.Dispatcher; {
	case d == nil:
		res, _ = wrapped(ctx, args)
	case reason == "":
		res = d.Search(ctx, dispatchSession{s}, args, wrapped)
	default:
		res = d.Load(ctx, dispatchSession{s}, reason, names, wrapped)
	}
	if !ran {
		return res, nil, false
	}
	return res, slices.Clip(loaded), true
}

// toolNames reads the names of a load's arguments ({"tool_names": [...]},
// as [execute.Dispatcher.Load] writes them and a hook may narrow them).
func toolNames(args json.RawMessage) []string {
	var a struct {
		ToolNames []string `json:"tool_names"`
	}
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	return a.ToolNames
}

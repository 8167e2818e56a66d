// Package executetest provides a [execute.Session] for tests: one backed by
// a deferral plan and a loaded set, as a harness's session would be.
//
// API: [NewSession] and [Session], the fake a handler or hook test passes to
// [execute.Dispatcher.Call] in place of a request.Session; execute's
// ExampleDispatcher_Call shows one.
package executetest

import (
	"slices"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Session implements execute.Session over a [deferral.Plan] (what the
// session sees) and a [search.LoadedSet] (which deferred schemas the model
// has loaded). It is safe for concurrent use.
type Session struct {
	id     string
	plan   *deferral.Plan
	loaded *search.LoadedSet
	names  []string
}

// NewSession returns a session named id. loaded may be nil for an empty set.
func NewSession(id string, plan *deferral.Plan, loaded *search.LoadedSet) *Session {
	if loaded == nil {
		loaded = search.NewLoadedSet()
	}
	var names []string
	for _, t := range plan.Resident() {
		names = append(names, t.Name)
	}
	for _, t := range plan.Deferred() {
		names = append(names, t.Name)
	}
	if len(plan.Deferred()) > 0 {
		names = append(names, registry.ToolSearchName, registry.DeferExecuteName)
	}
	slices.Sort(names)
	return &Session{id: id, plan: plan, loaded: loaded, names: names}
}

// ID returns the session's name.
func (s *Session) ID() string { return s.id }

// Lookup returns a resident or deferred tool of the plan; hidden and unknown
// names both report false.
func (s *Session) Lookup(name string) (*registry.Tool, bool, bool) {
	t, ok := s.plan.Snapshot().Tool(name)
	if !ok || s.plan.State(name) == deferral.Hidden {
		return nil, false, false
	}
	return t, s.plan.State(name) == deferral.Deferred, true
}

// Loaded reports whether name's schema is in the loaded set.
func (s *Session) Loaded(name string) bool { return s.loaded.Has(name) }

// MarkLoaded adds name to the loaded set.
func (s *Session) MarkLoaded(name string) { s.loaded.Add(name) }

// VisibleNames returns the resident and deferred names, and the entry tools
// when anything is deferred, sorted.
func (s *Session) VisibleNames() []string { return slices.Clone(s.names) }

// LoadedSet returns the session's loaded set.
func (s *Session) LoadedSet() *search.LoadedSet { return s.loaded }

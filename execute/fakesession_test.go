package execute_test

import (
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"slices"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// testSession is the dispatcher's view of a session (what
// request.Session gives it) over a [deferral.Plan] (what the session sees)
// and a [toolsearch.LoadedSet] (which deferred schemas the model has loaded),
// as a harness's session would be. It is safe for concurrent use.
type testSession struct {
	id     string
	plan   *deferral.Plan
	loaded *toolsearch.LoadedSet
	names  []string
}

// newTestSession returns a session named id. loaded may be nil for an empty set.
func newTestSession(id string, plan *deferral.Plan, loaded *toolsearch.LoadedSet) *testSession {
	if loaded == nil {
		loaded = toolsearch.NewLoadedSet()
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
	return &testSession{id: id, plan: plan, loaded: loaded, names: names}
}

// ID returns the session's name.
func (s *testSession) ID() string { return s.id }

// Lookup returns a resident or deferred tool of the plan; hidden and unknown
// names both report false.
func (s *testSession) Lookup(name string) (*registry.Tool, bool, bool) {
	t, ok := s.plan.Snapshot().Tool(name)
	if !ok || s.plan.State(name) == deferral.Hidden {
		return nil, false, false
	}
	return t, s.plan.State(name) == deferral.Deferred, true
}

// Loaded reports whether name's schema is in the loaded set.
func (s *testSession) Loaded(name string) bool { return s.loaded.Has(name) }

// MarkLoaded adds name to the loaded set.
func (s *testSession) MarkLoaded(name string) { s.loaded.Add(name) }

// VisibleNames returns the resident and deferred names, and the entry tools
// when anything is deferred, sorted.
func (s *testSession) VisibleNames() []string { return slices.Clone(s.names) }

// LoadedSet returns the session's loaded set.
func (s *testSession) LoadedSet() *toolsearch.LoadedSet { return s.loaded }

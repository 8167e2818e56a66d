package request

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

func toolNamesOf(ts []*registry.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// TestToolStateKeepsKindsApart (issue 42): the tools a session owns are
// kept by kind — a tool the model wrote is self-built, a tool Sync adopted
// is an arrival, and a restored arrival stays one (restored, hidden until
// Sync confirms it) — decided where each enters, never guessed from the
// tool afterwards; the saved state writes each kind in its own place.
func TestToolStateKeepsKindsApart(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, func(c *Config) { c.SelfBuilt = true })
	s := f.s
	require.NoError(t, s.RegisterSelfBuilt(registry.Tool{Name: "first_own", Description: "Count the words of a text.", RawSchema: json.RawMessage(echoSchema)}))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("sum", "Add two numbers and return their sum.", sumSchema)}))
	_, err := s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	require.NoError(t, s.RegisterSelfBuilt(registry.Tool{Name: "second_own", Description: "Reverse a text.", RawSchema: json.RawMessage(echoSchema)}))

	s.mu.Lock()
	assert.Equal(t, []string{"first_own", "second_own"}, toolNamesOf(s.tools.selfBuilt))
	assert.Equal(t, []string{"mcp__late__sum"}, toolNamesOf(s.tools.arrived))
	for name, want := range map[string]origin{"first_own": originSelfBuilt, "second_own": originSelfBuilt, "mcp__late__sum": originArrived} {
		assert.Equal(t, want, s.tools.std.entries[name].origin, name)
		assert.Equal(t, standingShown, s.tools.std.entries[name].standing, name)
	}
	s.mu.Unlock()

	saved, err := s.MarshalState()
	require.NoError(t, err)
	var st state
	require.NoError(t, json.Unmarshal(saved, &st))
	var selfBuilt, arrived []string
	for _, sb := range st.SelfBuilt {
		selfBuilt = append(selfBuilt, sb.Name)
	}
	require.NotNil(t, st.Live)
	for _, lt := range st.Live.Arrived {
		arrived = append(arrived, lt.Name)
	}
	assert.Equal(t, []string{"first_own", "second_own"}, selfBuilt)
	assert.Equal(t, []string{"mcp__late__sum"}, arrived)

	r, err := RestoreSession(s.cfg, saved, nil)
	require.NoError(t, err)
	r.mu.Lock()
	assert.Equal(t, []string{"first_own", "second_own"}, toolNamesOf(r.tools.selfBuilt))
	assert.Equal(t, []string{"mcp__late__sum"}, toolNamesOf(r.tools.arrived))
	assert.Equal(t, originRestored, r.tools.std.entries["mcp__late__sum"].origin)
	assert.Equal(t, standingPending, r.tools.std.entries["mcp__late__sum"].standing)
	r.mu.Unlock()
	_, err = r.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	r.mu.Lock()
	defer r.mu.Unlock()
	assert.Equal(t, originArrived, r.tools.std.entries["mcp__late__sum"].origin, "confirmed by Sync")
	assert.Equal(t, []string{"mcp__late__sum"}, toolNamesOf(r.tools.arrived), "still an arrival")
}

// TestToolStateLoadedSet: the loaded set's one writer marks and forgets
// names; a search returns what it loaded and the session marks it; an
// update forgets the tool, so that the model loads the new definition.
func TestToolStateLoadedSet(t *testing.T) {
	ts := newToolState()
	ts.markLoaded("b", "a", "b")
	assert.Equal(t, []string{"a", "b"}, ts.loadedNames())
	assert.True(t, ts.isLoaded("a"))
	ts.unload("a")
	assert.False(t, ts.isLoaded("a"))
	ts.takeUpdate(&registry.Tool{Name: "b"})
	assert.Empty(t, ts.loadedNames(), "an update forgets the tool")
	require.NotNil(t, ts.live)
	assert.Equal(t, 1, ts.liveGen())

	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, nil)
	res := f.search(t, `{"tool_names":["Read"]}`)
	assert.Empty(t, f.s.LoadedNames(), "a resident tool's name loads nothing: %s", res.Text)
	deferred := f.s.Plan().Deferred()
	require.NotEmpty(t, deferred)
	res = f.search(t, `{"tool_names":["`+deferred[0].Name+`"]}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, []string{deferred[0].Name}, f.s.LoadedNames(), "the search's load is marked")
}

// TestSearchScopeOneShape: the scope a search gets is the frozen prefix's
// shared index until the session has tools of its own; then its own
// overlay, with its own tools first.
func TestSearchScopeOneShape(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, func(c *Config) { c.SelfBuilt = true })
	s := f.s
	s.mu.Lock()
	sc := s.searchScope(s.frozen)
	assert.Same(t, &s.frozen.overlay, sc.Overlay)
	assert.Equal(t, toolNamesOf(s.frozen.shortened), toolNamesOf(sc.Announced))
	s.mu.Unlock()
	require.NoError(t, s.RegisterSelfBuilt(registry.Tool{Name: "own_tool", Description: "Count the words of a text.", RawSchema: json.RawMessage(echoSchema)}))
	s.mu.Lock()
	defer s.mu.Unlock()
	sc = s.searchScope(s.frozen)
	assert.Same(t, &s.tools.overlay, sc.Overlay)
	require.NotEmpty(t, sc.Announced)
	assert.Equal(t, "own_tool", sc.Announced[0].Name)
	assert.Same(t, s.tools.loaded, sc.Loaded)
}

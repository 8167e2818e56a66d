package request

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// A session that deferred nothing has no entry tools in its prefix: a
// self-built tool registered into it could never be loaded or called, so
// registration fails — unless the session was created for self-built tools,
// which pins the entry tools from the first turn.
func TestSelfBuiltNeedsEntryTools(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file."}))
	newSession := func(selfBuilt bool) *Session {
		s, err := NewSession(Config{Snapshot: reg.Snapshot(), Provider: OpenAIChat, Model: "m", SelfBuilt: selfBuilt})
		require.NoError(t, err)
		return s
	}
	tool := registry.Tool{Name: "count", Description: "Count things."}

	plain := newSession(false)
	err := plain.RegisterSelfBuilt(tool)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "Config.SelfBuilt")
	_, _, ok := plain.Lookup(registry.ToolSearchName)
	assert.False(t, ok)

	ready := newSession(true)
	_, _, ok = ready.Lookup(registry.ToolSearchName)
	assert.True(t, ok, "entry tools are pinned from the first turn")
	first, err := ready.BuildRequest(Turn{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	require.NoError(t, err)
	require.NoError(t, ready.RegisterSelfBuilt(tool))
	second, err := ready.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, {Role: RoleUser, Text: "count"}}})
	require.NoError(t, err)
	assert.Equal(t, string(ready.Prefix()), string(first[:len(ready.Prefix())]))
	assert.Equal(t, string(ready.Prefix()), string(second[:len(ready.Prefix())]), "registering changes no prefix byte")
	assert.Contains(t, string(second), "<new_deferred_tool>")
	_, deferred, ok := ready.Lookup("count")
	assert.True(t, ok)
	assert.True(t, deferred)

	assert.NotEqual(t, string(plain.Prefix()), string(ready.Prefix()), "SelfBuilt is part of the frozen inputs")
}

// Layers that differ only in where one layer ends and the next begins must
// not share a frozen prefix.
func TestCacheKeySeparatesLayers(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "A"}, registry.Tool{Name: "B"}))
	cache := NewCache()
	build := func(layers ...deferral.Layer) *frozenPrefix {
		s, err := NewSession(Config{Snapshot: reg.Snapshot(), Provider: OpenAIChat, Model: "m", Cache: cache, Policy: &deferral.Policy{Layers: layers}})
		require.NoError(t, err)
		return s.current()
	}
	one := build(deferral.Layer{Name: "x", Rules: []string{"Defer(A)"}})
	two := build(deferral.Layer{Name: "x"}, deferral.Layer{Name: "Defer(A)"})
	assert.NotSame(t, one, two)
	assert.Equal(t, 2, cache.Len())
}

// The cache is bounded: past its limit the least recently used prefix goes,
// live sessions keep theirs, and a rebuilt prefix has the same bytes.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "A"}))
	cache := &Cache{Limit: 2}
	session := func(model string) *Session {
		s, err := NewSession(Config{Snapshot: reg.Snapshot(), Provider: OpenAIChat, Model: model, Cache: cache})
		require.NoError(t, err)
		return s
	}
	a := session("a")
	b := session("b")
	assert.Same(t, a.current(), session("a").current(), "a hit refreshes a")
	c := session("c") // evicts b, the least recently used
	assert.Equal(t, 2, cache.Len())
	assert.Same(t, a.current(), session("a").current())
	assert.Same(t, c.current(), session("c").current())
	b2 := session("b")
	assert.NotSame(t, b.current(), b2.current(), "b was evicted and frozen again")
	assert.Equal(t, string(b.Prefix()), string(b2.Prefix()), "with the same bytes")
	assert.Equal(t, 2, cache.Len())

	// Registry changes do not grow the cache past its limit either.
	for i := range 10 {
		require.NoError(t, reg.Register(registry.Tool{Name: fmt.Sprintf("T%d", i)}))
		session("a")
	}
	assert.Equal(t, 2, cache.Len())
	cache.mu.Lock()
	assert.LessOrEqual(t, len(cache.snaps), 2)
	cache.mu.Unlock()
}

// A session's mode hides self-built tools as it hides registered ones: one
// outside the mode cannot be registered, and narrowing the mode later hides
// the ones already there — from Lookup, tool_search and VisibleNames.
func TestSelfBuiltRespectsMode(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read"}, registry.Tool{Name: "Write"}))
	ro := true
	readOnly := registry.Tool{Name: "peek", Description: "Peek at a value.", Annotations: &registry.Annotations{ReadOnlyHint: &ro}}
	writer := registry.Tool{Name: "scribble", Description: "Write a value."}

	ask, err := NewSession(Config{Snapshot: reg.Snapshot(), Provider: OpenAIChat, Model: "m", SelfBuilt: true,
		View: deferral.View{Mode: deferral.Mode{Name: "ask", Allow: []string{"Read"}, ReadOnly: true}}})
	require.NoError(t, err)
	err = ask.RegisterSelfBuilt(writer)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `outside the session's mode "ask"`)
	// The model wrote the read-only claim itself: an untrusted hint, which
	// never widens a mode (visibility.HasHint).
	err = ask.RegisterSelfBuilt(readOnly)
	require.ErrorIs(t, err, ErrConfig, "a self-built tool's read-only claim does not fit a read-only mode")

	full, err := NewSession(Config{Snapshot: reg.Snapshot(), Provider: OpenAIChat, Model: "m", SelfBuilt: true})
	require.NoError(t, err)
	require.NoError(t, full.RegisterSelfBuilt(writer))
	_, _, ok := full.Lookup("scribble")
	require.True(t, ok)
	require.NoError(t, full.SetView(deferral.View{Mode: deferral.Mode{Name: "ask", Allow: []string{"Read"}}}))
	_, _, ok = full.Lookup("scribble")
	assert.False(t, ok, "narrowing the mode hides the self-built tool")
	assert.NotContains(t, full.visibleNames(), "scribble")
}

// EntryTools gives budget accounts the entry tools exactly as a session
// sends them, with the index left out of tool_search's description.
func TestEntryToolsMatchSession(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read"}, registry.Tool{Name: "VideoGen", DeferLoading: registry.DeferTrue}))
	s, err := NewSession(Config{Snapshot: reg.Snapshot(), Provider: Anthropic, Model: "m", Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage("64")}})
	require.NoError(t, err)
	tools, index, err := EntryDefinitions(s.current().Plan(), nil)
	require.NoError(t, err)
	require.Len(t, tools, 2)
	assert.Equal(t, s.current().Index(), index)
	sent := map[string]frozenTool{}
	for _, ft := range s.current().Tools() {
		sent[ft.Name] = ft
	}
	assert.Equal(t, strings.TrimSuffix(sent[registry.ToolSearchName].Description, index), tools[0].Description)
	assert.Equal(t, sent[registry.DeferExecuteName].Description, tools[1].Description)
	assert.Equal(t, string(sent[registry.DeferExecuteName].Schema), string(tools[1].ModelSchema()))

	none, _ := (&deferral.Policy{}).Plan(registry.New(nil).Snapshot(), deferral.View{})
	tools, index, err = EntryDefinitions(none, nil)
	require.NoError(t, err)
	assert.Empty(t, tools)
	assert.Empty(t, index)
}

// Self-built registration answers "taken" the same way whoever holds the
// name: a visible tool, a tool the session's tier hides, a self-built tool
// of the session. No answer names the holder or its server (issue 11,
// case 8).
func TestSelfBuiltTakenSameForHiddenHolder(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file."}))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "secret", Tier: registry.TierFull}, []registry.Tool{{Name: "drop_db"}}))
	s, err := NewSession(Config{Snapshot: reg.Snapshot(), Provider: OpenAIChat, Model: "m", SelfBuilt: true})
	require.NoError(t, err)
	_, _, ok := s.Lookup("mcp__secret__drop_db")
	require.False(t, ok, "the full-tier tool is hidden from a core session")
	require.NoError(t, s.RegisterSelfBuilt(registry.Tool{Name: "count"}))
	answers := map[string]bool{}
	for _, name := range []string{"Read", "mcp__secret__drop_db", "count", registry.ToolSearchName} {
		err := s.RegisterSelfBuilt(registry.Tool{Name: name})
		require.ErrorIs(t, err, registry.ErrDuplicateTool, name)
		answers[strings.ReplaceAll(err.Error(), name, "NAME")] = true
		assert.NotContains(t, err.Error(), "secret\"")
	}
	assert.Len(t, answers, 1, "%v", answers)
}

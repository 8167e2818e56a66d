package request

import (
	"encoding/json"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// fsRegistry is a built-in Read and a filesystem server with write_file
// and read_file, registered in a shuffled order.
func fsRegistry(t *testing.T, seed uint64) *registry.Snapshot {
	t.Helper()
	r := registry.New(nil)
	require.NoError(t, r.AddGroup(registry.Group{Name: "filesystem", Description: "Files."}))
	obj := json.RawMessage(`{"type":"object"}`)
	tools := []registry.Tool{
		{Name: "Read", Description: "Read a file.", RawSchema: obj},
		{Group: "filesystem", Name: "write_file", Description: "Write a file.", RawSchema: obj},
		{Group: "filesystem", Name: "read_file", Description: "Read a file.", RawSchema: obj},
	}
	rand.New(rand.NewPCG(seed, 1)).Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
	require.NoError(t, r.Register(tools...))
	return r.Snapshot()
}

// TestRuleWarnings: every misspelt rule — permission, hook, defer layer,
// mode allowlist — is reported by the session and as a "rule_unmatched"
// event, with the close names; rules that match, and rules naming a
// pending server, are not.
func TestRuleWarnings(t *testing.T) {
	var mu sync.Mutex
	var events []execute.Event
	d, err := execute.New(&execute.Options{
		Permissions: append(execute.MustPermissions(
			"Deny(mcp__filesystem__writ_file)", "Deny(write_file)", "Deny(mcp_filesystem_write_file)",
			"Ask(mcp__filesystem__read_*)", "Deny(mcp__github__*)", "Allow(@readonly)"),
			execute.Permission{Action: execute.Deny, Pattern: "mcp__filesytem__*", Source: "project"}),
		Hooks: []execute.Hook{{Name: "audit", Pattern: "Raed"}, {Name: "all"}},
		Observer: execute.OnEvent(func(ev execute.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, ev)
		}),
	})
	require.NoError(t, err)
	for seed := range uint64(3) {
		mu.Lock()
		events = nil
		mu.Unlock()
		cfg := Config{ID: "s1", Snapshot: fsRegistry(t, seed), Provider: Anthropic, Model: "claude-sonnet-4-5",
			Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`256`)}, Dispatcher: d, Pending: []string{"github"},
			Policy: &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("user", "Defer(mcp__*)", "NoDefer(mcp__filesystem__read_fiel)")}},
			View:   deferral.View{Mode: deferral.Mode{Name: "edit", Allow: []string{"Read", "mcp__*", "Wirte"}}},
		}
		s, err := NewSession(cfg)
		require.NoError(t, err)
		var got []string
		for _, w := range s.RuleWarnings() {
			got = append(got, w.String())
		}
		want := []string{
			"Deny(mcp__filesystem__writ_file) selects no tool; did you mean mcp__filesystem__write_file?",
			"Deny(write_file) selects no tool; did you mean mcp__filesystem__write_file?",
			"Deny(mcp_filesystem_write_file) selects no tool; did you mean mcp__filesystem__write_file?",
			"Deny(mcp__filesytem__*) [project] selects no tool; did you mean mcp__filesystem__*?",
			`hook "audit" (Raed) selects no tool; did you mean Read?`,
			"NoDefer(mcp__filesystem__read_fiel) [user] selects no tool; did you mean mcp__filesystem__read_file?",
			`mode "edit" allows (Wirte) selects no tool`,
		}
		assert.Equal(t, want, got, "seed %d", seed)
		mu.Lock()
		var evs []string
		for _, ev := range events {
			if ev.Kind == execute.EventRuleUnmatched {
				assert.Equal(t, "s1", ev.Session)
				evs = append(evs, ev.Detail)
			}
		}
		mu.Unlock()
		assert.Equal(t, want, evs, "one event per warning")
	}
}

// TestRuleWarningsNone: a configuration whose rules all select a tool
// starts without warnings.
func TestRuleWarningsNone(t *testing.T) {
	d, err := execute.New(&execute.Options{Permissions: execute.MustPermissions("Deny(mcp__filesystem__write_file)", "Allow(Read)", "Ask(tool_search)")})
	require.NoError(t, err)
	s, err := NewSession(Config{Snapshot: fsRegistry(t, 0), Provider: OpenAIChat, Model: "gpt-4.1", Dispatcher: d,
		Policy: &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("user", "Defer(mcp__*)")}}})
	require.NoError(t, err)
	assert.Empty(t, s.RuleWarnings())
}

package request

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// preloadVault is a session on the vault registry with Config.Preload,
// the dispatcher's options opts and view v.
func preloadVault(t *testing.T, p Provider, opts *execute.Options, v deferral.View, preload bool) *Session {
	t.Helper()
	var ran atomic.Int32
	d, err := execute.New(opts)
	require.NoError(t, err)
	s, err := NewSession(Config{ID: "v", Snapshot: vaultRegistry(t, &ran).Snapshot(), Provider: p, Model: testModel(p),
		Extra: tokenExtra(p, "256"), Dispatcher: d, View: v, Preload: preload})
	require.NoError(t, err)
	return s
}

// TestPreloadNamedTool: a user message naming a deferred tool gets its
// schema in a <preloaded_tools> block in that same request, after the
// prefix, which is byte-identical to a session without Preload; the tool
// joins the loaded set and runs through defer_execute with no search; a
// restored session sends the same bytes on the next turn.
func TestPreloadNamedTool(t *testing.T) {
	const ask = "Use mcp__vault__read_secret to read prod/db."
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			off := preloadVault(t, p, nil, deferral.View{}, false)
			on := preloadVault(t, p, nil, deferral.View{}, true)
			require.Equal(t, string(off.Prefix()), string(on.Prefix()), "Preload does not touch the prefix")
			bodyOff, err := off.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
			require.NoError(t, err)
			body, err := on.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(string(body), string(on.Prefix())))
			tail := string(body[len(on.Prefix()):])
			assert.Contains(t, tail, "preloaded_tools")
			assert.Contains(t, tail, "## mcp__vault__read_secret")
			assert.Contains(t, tail, "vault_path_qx", "the schema's parameters")
			assert.NotContains(t, string(bodyOff), "preloaded_tools")
			assert.NotContains(t, string(bodyOff), "vault_path_qx")
			assert.Equal(t, []string{"mcp__vault__read_secret"}, on.LoadedNames())
			assert.Empty(t, off.LoadedNames())
			checkRules(t, p, body)

			// Byte-stable: another session on the same inputs sends the same.
			again := preloadVault(t, p, nil, deferral.View{}, true)
			body2, err := again.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
			require.NoError(t, err)
			assert.Equal(t, string(body), string(body2))

			// Stored: the restored session replays the block and keeps it loaded.
			saved, err := on.MarshalState()
			require.NoError(t, err)
			restored, err := RestoreSession(on.cfg, saved, nil)
			require.NoError(t, err)
			assert.Equal(t, on.LoadedNames(), restored.LoadedNames())
			r := on.Call(context.Background(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"mcp__vault__read_secret","params":{"vault_path_qx":"prod/db"}}`))
			assert.False(t, r.IsError, r.Text)
			next := Turn{Messages: []Message{call("c1", registry.DeferExecuteName, `{"tool_name":"mcp__vault__read_secret","params":{"vault_path_qx":"prod/db"}}`), result("c1", r.Text)}}
			a, err := on.BuildRequest(next)
			require.NoError(t, err)
			b, err := restored.BuildRequest(next)
			require.NoError(t, err)
			assert.Equal(t, string(a), string(b))
			assert.Equal(t, 1, strings.Count(string(a), "<preloaded_tools>"), "in the history once, never re-sent")

			// A tool already loaded is not attached again.
			c, err := on.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "done"}, userMsg(ask)}})
			require.NoError(t, err)
			assert.Equal(t, 1, strings.Count(string(c), "<preloaded_tools>"))
		})
	}
}

// TestPreloadNeverHiddenOrDenied: a tool the rules deny or the mode hides
// is never preloaded, even when the message names it; the same message on
// a session that shows the tool preloads it (the control).
func TestPreloadNeverHiddenOrDenied(t *testing.T) {
	const ask = "Use mcp__vault__read_secret to read prod/db, then mcp__vault__list_keys."
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			deny := &execute.Options{Permissions: execute.MustPermissions("Deny(mcp__vault__read_*)")}
			hide := deferral.View{Mode: deferral.Mode{Name: "keys", Allow: []string{"Read", "mcp__vault__list_keys", "mcp__vault__write_secret"}}}
			for name, s := range map[string]*Session{
				"denied": preloadVault(t, p, deny, deferral.View{}, true),
				"hidden": preloadVault(t, p, nil, hide, true),
			} {
				body, err := s.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
				require.NoError(t, err)
				tail := string(body[len(s.Prefix()):])
				assert.Contains(t, tail, "## mcp__vault__list_keys", "%s: the shown tool is preloaded", name)
				assert.NotContains(t, tail, "zanzibarian", name)
				assert.NotContains(t, tail, "vault_path_qx", name)
				assert.Equal(t, []string{"mcp__vault__list_keys"}, s.LoadedNames(), name)
			}
			control := preloadVault(t, p, nil, deferral.View{}, true)
			body, err := control.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
			require.NoError(t, err)
			assert.Contains(t, string(body), "vault_path_qx", "the control preloads the tool")
		})
	}
}

// TestPreloadLateDeniedArrival: a server that arrives through Sync after
// the session started has its shown tools preloaded and never the one the
// rules deny (the session's view).
func TestPreloadLateDeniedArrival(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, func(c *Config) { c.Preload = true })
	f.turn(t, userMsg("hi"))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{
		mcpTool("sum", "Add two numbers and return their sum.", sumSchema),
		mcpTool("forbidden", "Print the environment variables of the host.", echoSchema),
	}))
	_, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	body := f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("Run mcp__late__forbidden and mcp__late__sum with a=1, b=2."))
	assert.NotContains(t, body, "environment variables of the host")
	assert.Contains(t, body, "## mcp__late__sum")
	assert.Equal(t, []string{"mcp__late__sum"}, f.s.LoadedNames())
}

// TestPreloadClearRanking: without a name, a message whose ranking is
// clear (many specific words of one tool, nothing close behind) preloads
// its tool; a vague one preloads nothing.
func TestPreloadClearRanking(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "maps"}, []registry.Tool{
		mcpTool("geocode", "Convert a postal street address into latitude and longitude coordinates.", `{"type":"object","properties":{"address":{"type":"string"}},"required":["address"]}`),
		mcpTool("route", "Plan a driving route between two places with turn-by-turn directions.", `{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}},"required":["from","to"]}`),
		mcpTool("timezone", "Look up the time zone of a city.", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		mcpTool("elevation", "Return the elevation above sea level of a point.", `{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat","lon"]}`),
	}))
	for _, c := range []struct {
		ask  string
		want []string
	}{
		{"Convert the postal street address 1 Main St into latitude and longitude coordinates.", []string{"mcp__maps__geocode"}},
		{"Plan a driving route with turn-by-turn directions from Paris to Lyon.", []string{"mcp__maps__route"}},
		{"What time is it?", nil},
		{"How is the weather today?", nil},
	} {
		s, err := NewSession(Config{ID: "m", Snapshot: reg.Snapshot(), Provider: Anthropic, Model: testModel(Anthropic), Extra: tokenExtra(Anthropic, "256"),
			Policy: &deferral.Policy{Default: deferral.DefaultDefer}, Preload: true})
		require.NoError(t, err)
		body, err := s.BuildRequest(Turn{Messages: []Message{userMsg(c.ask)}})
		require.NoError(t, err)
		assert.ElementsMatch(t, c.want, s.LoadedNames(), c.ask)
		assert.Equal(t, c.want != nil, strings.Contains(string(body), "<preloaded_tools>"), c.ask)
	}
}

// TestPreloadPortableOnly: in the native and client modes the provider
// loads schemas, and Preload changes no byte and loads nothing.
func TestPreloadPortableOnly(t *testing.T) {
	const ask = "Use mcp__vault__read_secret to read prod/db."
	for _, p := range []Provider{Anthropic, OpenAIResponses} {
		for _, m := range []ToolSearch{Native, Client} {
			var bodies [2]string
			for i, on := range []bool{false, true} {
				var ran atomic.Int32
				s, err := NewSession(Config{ID: "v", Snapshot: vaultRegistry(t, &ran).Snapshot(), Provider: p, Model: testModel(p),
					Extra: tokenExtra(p, "256"), ToolSearch: m, Preload: on})
				require.NoError(t, err)
				body, err := s.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
				require.NoError(t, err)
				bodies[i] = string(body)
				assert.Empty(t, s.LoadedNames())
			}
			assert.Equal(t, bodies[0], bodies[1], "%s/%s", p, m)
			assert.NotContains(t, bodies[1], "preloaded_tools")
		}
	}
}

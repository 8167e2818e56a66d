package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/registry"
)

// TestGolden pins the request bytes of the three providers over the
// harness catalog (its own defer flags) and the github catalog (a policy
// that defers most of it), for a conversation with every message shape.
func TestGolden(t *testing.T) {
	catalogs := []struct {
		name, file string
		policy     *deferral.Policy
	}{
		{"harness", harnessFile, &deferral.Policy{}},
		{"github", githubFile, githubPolicy()},
	}
	for _, c := range catalogs {
		for _, p := range providers {
			t.Run(c.name+"/"+string(p), func(t *testing.T) {
				reg, _ := loadCatalogs(t, 0, c.file)
				s, err := NewSession(testConfig(reg.Snapshot(), p, c.policy, nil))
				require.NoError(t, err)
				var bodies [][]byte
				for _, turn := range script() {
					b, err := s.BuildRequest(turn)
					require.NoError(t, err)
					require.True(t, json.Valid(b), "valid JSON")
					bodies = append(bodies, b)
				}
				assertStablePrefix(t, bodies...)
				last := bodies[len(bodies)-1]
				goldenfile.Golden(t, filepath.Join("..", "testdata", "golden", c.name+"."+string(p)+".json"), last)
				checkShape(t, p, s, last)
			})
		}
	}
}

// checkShape checks provider invariants on a body, computed from the
// session's plan rather than written out.
func checkShape(t *testing.T, p Provider, s *Session, body []byte) {
	t.Helper()
	var req map[string]any
	require.NoError(t, json.Unmarshal(body, &req))
	tools, _ := req["tools"].([]any)
	if p == Gemini {
		// One tools[] entry holds every function declaration.
		require.Len(t, tools, 1)
		tools, _ = tools[0].(map[string]any)["functionDeclarations"].([]any)
	}
	plan := s.current().Plan()
	want := len(plan.Resident())
	if len(plan.Deferred()) > 0 {
		want += 2
	}
	require.Len(t, tools, want)
	names := map[string]bool{}
	for _, raw := range tools {
		tool := raw.(map[string]any)
		if fn, ok := tool["function"].(map[string]any); ok {
			tool = fn
		}
		names[tool["name"].(string)] = true
	}
	listed := map[string]bool{}
	for _, e := range readIndex(t, s.current().Index()) {
		listed[e.full] = true
	}
	for _, d := range plan.Deferred() {
		assert.False(t, names[d.Name], "deferred %s absent from tools[]", d.Name)
		assert.True(t, listed[d.Name], "deferred name %s in the index", d.Name)
	}
	assert.False(t, bytes.Contains(body, []byte(`\u003c`)), "no HTML escaping")
	assert.Contains(t, string(body), "<user_query>thanks</user_query>")
	switch p {
	case Anthropic:
		assert.Equal(t, 3, bytes.Count(body, []byte(`"cache_control"`)), "breakpoints: system, tools, latest turn")
		lastTool := tools[len(tools)-1].(map[string]any)
		assert.Equal(t, plan.State(lastTool["name"].(string)) != deferral.Deferred, true)
		assert.Contains(t, lastTool, "cache_control")
		msgs := req["messages"].([]any)
		for i, m := range msgs {
			want := "user"
			if i%2 == 1 {
				want = "assistant"
			}
			assert.Equal(t, want, m.(map[string]any)["role"], "roles alternate at %d", i)
		}
	case OpenAIChat:
		msgs := req["messages"].([]any)
		assert.Equal(t, "system", msgs[0].(map[string]any)["role"])
		assert.NotContains(t, string(body), "cache_control")
	case OpenAIResponses:
		assert.Contains(t, req, "instructions")
		assert.Contains(t, string(body), `"type":"function_call_output"`)
	case Gemini:
		assert.NotContains(t, req, "model", "the model is in the URL")
		assert.Contains(t, req, "systemInstruction")
		assert.Contains(t, string(body), `"functionResponse":{"id":`)
		for i, c := range req["contents"].([]any) {
			want := "user"
			if i%2 == 1 {
				want = "model"
			}
			assert.Equal(t, want, c.(map[string]any)["role"], "roles alternate at %d", i)
		}
	}
}

// TestSameBytesAnyRegistrationOrder builds the same conversation from
// registries filled in shuffled orders and compares every body.
func TestSameBytesAnyRegistrationOrder(t *testing.T) {
	files := []string{harnessFile, githubFile, "catalogs/git.tools.json", "catalogs/filesystem.tools.json"}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			var want [][]byte
			for seed := uint64(0); seed < 5; seed++ {
				reg, _ := loadCatalogs(t, seed, files...)
				s, err := NewSession(testConfig(reg.Snapshot(), p, githubPolicy(), nil))
				require.NoError(t, err)
				var got [][]byte
				for _, turn := range script() {
					b, err := s.BuildRequest(turn)
					require.NoError(t, err)
					checkRules(t, p, b)
					got = append(got, b)
				}
				if want == nil {
					want = got
					continue
				}
				for i := range got {
					require.Nil(t, wire.Diff(want[i], got[i]), "seed %d turn %d", seed, i)
				}
			}
		})
	}
}

// TestHundredTurns runs 100 turns with searches through Session.Call,
// self-built tools and an MCP reconnect; the prefix never changes and
// every earlier message keeps its bytes.
func TestHundredTurns(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			reg, cats := loadCatalogs(t, 0, harnessFile, githubFile)
			cache := NewCache()
			cfg := testConfig(reg.Snapshot(), p, githubPolicy(), cache)
			s, err := NewSession(cfg)
			require.NoError(t, err)
			prefix := bytes.Clone(s.Prefix())
			var bodies [][]byte
			ctx := t.Context()
			for turn := 0; turn < 100; turn++ {
				var tr Turn
				switch {
				case turn == 0:
					tr.Messages = []Message{userMsg("start")}
				case turn%10 == 3:
					args := json.RawMessage(fmt.Sprintf(`{"queries":["issue %d"]}`, turn))
					id := fmt.Sprintf("c%d", turn)
					res := s.Call(ctx, "tool_search", args)
					tr.Messages = []Message{
						{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: "tool_search", Arguments: args}}},
						{Role: RoleTool, CallID: id, Text: res.Text, IsError: res.IsError},
					}
				case turn%10 == 4:
					tr.Messages = []Message{{Role: RoleAssistant, Text: fmt.Sprintf("step %d", turn)}, userMsg(fmt.Sprintf("continue %d", turn))}
				case turn%25 == 7:
					require.NoError(t, s.RegisterSelfBuilt(registry.Tool{
						Name: fmt.Sprintf("my_tool_%d", turn), Description: "Counts lines in a file.",
						RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
					}))
					tr.Messages = []Message{{Role: RoleAssistant, Text: "built a tool"}, userMsg("use it")}
				case turn == 50:
					// The github server reconnects with the same tools.
					require.NoError(t, reg.ReplaceGroup(registry.Group{Name: cats[1].Server, Description: cats[1].Description}, cats[1].Tools))
					tr.Messages = []Message{{Role: RoleAssistant, Text: "reconnected"}, userMsg("go on")}
				default:
					tr.Messages = []Message{{Role: RoleAssistant, Text: fmt.Sprintf("reply %d", turn)}, userMsg(fmt.Sprintf("turn %d", turn))}
					tr.Inject = []string{fmt.Sprintf("<reminder>turn %d</reminder>", turn)}
				}
				b, err := s.BuildRequest(tr)
				require.NoError(t, err, "turn %d", turn)
				require.True(t, json.Valid(b), "turn %d", turn)
				checkRules(t, p, b)
				require.True(t, bytes.HasPrefix(b, prefix), "turn %d: %s", turn, wire.Diff(prefix, b[:min(len(b), len(prefix))]))
				bodies = append(bodies, b)
			}
			assertStablePrefix(t, bodies...)
			// Earlier messages keep their bytes: each body, minus its closing
			// (and Anthropic's moving breakpoint), starts the next one.
			for i := 1; i < len(bodies); i++ {
				prev := bytes.Replace(bodies[i-1], []byte(ephemeral), nil, -1)
				next := bytes.Replace(bodies[i], []byte(ephemeral), nil, -1)
				require.True(t, bytes.HasPrefix(next, prev[:len(prev)-2]), "turn %d rewrote history: %s", i, wire.Diff(prev[:len(prev)-2], next[:len(prev)-2]))
			}
			assert.Contains(t, string(bodies[len(bodies)-1]), `<new_deferred_tool>\nmy_tool_7: Counts lines`)
			assert.NotContains(t, s.current().Index(), "my_tool_7", "the index is not rewritten")
			_, deferred, ok := s.Lookup("my_tool_7")
			assert.True(t, ok && deferred)

			// A new session on the reconnected registry has the same prefix
			// and shares the frozen copy.
			cfg2 := cfg
			cfg2.Snapshot = reg.Snapshot()
			require.NotEqual(t, cfg.Snapshot.Version(), cfg2.Snapshot.Version())
			s2, err := NewSession(cfg2)
			require.NoError(t, err)
			assert.Equal(t, prefix, s2.Prefix())
			assert.Same(t, s.current(), s2.current())
			assert.Equal(t, 1, cache.Len())
		})
	}
}

// TestPrefixEvents lists every session event and whether it changes the
// prefix; the README's list comes from here.
func TestPrefixEvents(t *testing.T) {
	reg, cats := loadCatalogs(t, 0, harnessFile, githubFile)
	// A full-tier tool, so that elevation shows something new.
	require.NoError(t, reg.Register(registry.Tool{Name: "AdminPanel", Description: "Admin.", Tier: registry.TierFull}))
	events := []struct {
		name    string
		changes bool
		do      func(t *testing.T, s *Session) *Session
	}{
		{"turn with messages and injections", false, func(t *testing.T, s *Session) *Session {
			_, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("more")}, Inject: []string{"x"}})
			require.NoError(t, err)
			return s
		}},
		{"search loads schemas", false, func(t *testing.T, s *Session) *Session {
			s.Call(t.Context(), "tool_search", json.RawMessage(`{"tool_names":["mcp__github__list_issues"]}`))
			dispatchSession{s}.MarkLoaded("mcp__github__list_issues")
			return s
		}},
		{"self-built tool", false, func(t *testing.T, s *Session) *Session {
			require.NoError(t, s.RegisterSelfBuilt(registry.Tool{Name: "mine", Description: "Mine."}))
			return s
		}},
		{"MCP reconnect, same tools", false, func(t *testing.T, s *Session) *Session {
			require.NoError(t, reg.ReplaceGroup(registry.Group{Name: cats[1].Server, Description: cats[1].Description}, cats[1].Tools))
			cfg := s.cfg
			cfg.Snapshot = reg.Snapshot()
			n, err := NewSession(cfg)
			require.NoError(t, err)
			return n
		}},
		{"save and restore", false, func(t *testing.T, s *Session) *Session {
			st, err := s.MarshalState()
			require.NoError(t, err)
			n, err := RestoreSession(s.cfg, st, nil)
			require.NoError(t, err)
			return n
		}},
		// A view change is a message, not a new prefix (issue 44).
		{"elevation", false, func(t *testing.T, s *Session) *Session {
			require.NoError(t, s.Elevate())
			return s
		}},
		{"mode change", false, func(t *testing.T, s *Session) *Session {
			require.NoError(t, s.SetView(deferral.View{Mode: deferral.Mode{Name: "ask", ReadOnly: true}}))
			return s
		}},
		{"new session, other policy", true, func(t *testing.T, s *Session) *Session {
			cfg := s.cfg
			// Everything resident would be over Chat Completions' 128 tools.
			cfg.Policy = &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("project", "Defer(mcp__github__*)")}}
			n, err := NewSession(cfg)
			require.NoError(t, err)
			return n
		}},
		{"new session, other session variables", true, func(t *testing.T, s *Session) *Session {
			cfg := s.cfg
			cfg.System = "Another instruction."
			n, err := NewSession(cfg)
			require.NoError(t, err)
			return n
		}},
	}
	for _, p := range providers {
		for _, ev := range events {
			t.Run(string(p)+"/"+ev.name, func(t *testing.T) {
				s, err := NewSession(testConfig(reg.Snapshot(), p, githubPolicy(), NewCache()))
				require.NoError(t, err)
				_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
				require.NoError(t, err)
				before := bytes.Clone(s.Prefix())
				after := ev.do(t, s).Prefix()
				assert.Equal(t, ev.changes, !bytes.Equal(before, after), "%s", wire.Diff(before, after))
			})
		}
	}
}

func TestRestoreBuildsSameBytes(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
			cfg := testConfig(reg.Snapshot(), p, githubPolicy(), nil)
			s, err := NewSession(cfg)
			require.NoError(t, err)
			turns := script()
			for _, tr := range turns[:3] {
				_, err := s.BuildRequest(tr)
				require.NoError(t, err)
			}
			dispatchSession{s}.MarkLoaded("mcp__github__list_issues")
			require.NoError(t, s.RegisterSelfBuilt(registry.Tool{Name: "mine", Description: "Mine."}))
			require.NoError(t, s.Elevate())
			st, err := s.MarshalState()
			require.NoError(t, err)

			// Another "process": a fresh registry, fresh cache.
			reg2, _ := loadCatalogs(t, 7, harnessFile, githubFile)
			cfg2 := testConfig(reg2.Snapshot(), p, githubPolicy(), nil)
			cfg2.RestoreElevation = true
			r, err := RestoreSession(cfg2, st, nil)
			require.NoError(t, err)
			assert.True(t, r.View().Elevated)
			assert.True(t, r.Loaded("mcp__github__list_issues"))
			_, _, ok := r.Lookup("mine")
			assert.True(t, ok)

			want, err := s.BuildRequest(turns[3])
			require.NoError(t, err)
			got, err := r.BuildRequest(turns[3])
			require.NoError(t, err)
			assert.Nil(t, wire.Diff(want, got))
			assert.Contains(t, string(got), `<new_deferred_tool>\nmine: Mine.`)
		})
	}
}

func TestBadInput(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile)
	snap := reg.Snapshot()
	t.Run("config", func(t *testing.T) {
		tests := []struct {
			name string
			edit func(*Config)
			err  error
			says string
		}{
			{"unknown provider", func(c *Config) { c.Provider = "vertex" }, ErrUnknownProvider, `"vertex"`},
			{"empty provider", func(c *Config) { c.Provider = "" }, ErrUnknownProvider, "Provider"},
			{"missing model", func(c *Config) { c.Model = "" }, ErrConfig, "Model"},
			{"invalid UTF-8 system", func(c *Config) { c.System = "a\xffb" }, ErrConfig, "System"},
			{"reserved extra", func(c *Config) { c.Extra = map[string]json.RawMessage{"tools": json.RawMessage(`[]`)} }, ErrConfig, `"tools"`},
			{"bad extra", func(c *Config) { c.Extra = map[string]json.RawMessage{"max_tokens": json.RawMessage(`{`)} }, ErrConfig, "max_tokens"},
			{"forbidden variable", func(c *Config) { c.SessionVars = map[string]string{"turn": "1"} }, ErrConfig, `"turn"`},
			{"reserved variable", func(c *Config) { c.SessionVars = map[string]string{"index": "x"} }, ErrConfig, `"index"`},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				cfg := testConfig(snap, Anthropic, nil, nil)
				tc.edit(&cfg)
				_, err := NewSession(cfg)
				require.ErrorIs(t, err, tc.err)
				assert.Contains(t, err.Error(), tc.says)
			})
		}
	})
	t.Run("messages", func(t *testing.T) {
		tests := []struct {
			name     string
			provider Provider
			msgs     []Message
			err      error
			says     string
		}{
			{"anthropic starts with assistant", Anthropic, []Message{{Role: RoleAssistant, Text: "hi"}}, ErrSequence, "messages[0]"},
			// Two users or two assistants in a row are accepted on Anthropic
			// (TestAnthropicSameRoleNeighbours).
			{"result without call", OpenAIChat, []Message{userMsg("a"), result("nope", "x")}, ErrSequence, `"nope"`},
			{"call without result", OpenAIResponses, []Message{userMsg("a"), call("c1", "Read", `{}`), userMsg("b")}, ErrSequence, `"c1"`},
			{"invalid UTF-8", OpenAIChat, []Message{userMsg("a\xff")}, ErrInvalidMessage, "messages[0].text"},
			{"arguments not an object", Anthropic, []Message{userMsg("a"), call("c1", "Read", `[1]`)}, ErrInvalidMessage, "messages[1].tool_calls[0].arguments"},
			{"arguments not JSON", Anthropic, []Message{userMsg("a"), call("c1", "Read", `{"a":`)}, ErrInvalidMessage, "arguments"},
			{"bad tool name", OpenAIChat, []Message{userMsg("a"), call("c1", "no spaces", `{}`)}, ErrInvalidMessage, "name"},
			{"unknown role", OpenAIChat, []Message{{Role: "system", Text: "x"}}, ErrInvalidMessage, `"system"`},
			{"empty user", OpenAIChat, []Message{{Role: RoleUser}}, ErrInvalidMessage, "no text"},
			{"no messages", OpenAIChat, nil, ErrSequence, "no messages"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				s, err := NewSession(testConfig(snap, tc.provider, nil, nil))
				require.NoError(t, err)
				_, err = s.BuildRequest(Turn{Messages: tc.msgs})
				require.ErrorIs(t, err, tc.err)
				assert.Contains(t, err.Error(), tc.says)
				assert.Empty(t, s.Messages(), "nothing is committed on error")
				// The session is still usable.
				_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("ok")}})
				require.NoError(t, err)
			})
		}
	})
	t.Run("self-built", func(t *testing.T) {
		s, err := NewSession(testConfig(snap, OpenAIChat, nil, nil))
		require.NoError(t, err)
		assert.ErrorIs(t, s.RegisterSelfBuilt(registry.Tool{Name: "Read"}), registry.ErrDuplicateTool)
		assert.ErrorIs(t, s.RegisterSelfBuilt(registry.Tool{Name: "bad name"}), registryx.ErrInvalidName)
		big := make([]byte, registryx.MaxSelfBuiltDescription+1)
		for i := range big {
			big[i] = 'a'
		}
		assert.ErrorIs(t, s.RegisterSelfBuilt(registry.Tool{Name: "big", Description: string(big)}), registryx.ErrTooLarge)
		require.NoError(t, s.RegisterSelfBuilt(registry.Tool{Name: "ok"}))
		assert.ErrorIs(t, s.RegisterSelfBuilt(registry.Tool{Name: "ok"}), registry.ErrDuplicateTool)
	})
	t.Run("state", func(t *testing.T) {
		cfg := testConfig(snap, OpenAIChat, nil, nil)
		for _, st := range []string{`{`, `{"version":9}`, `{"version":3,"messages":[{"role":"tool","call_id":"x"}]}`} {
			_, err := RestoreSession(cfg, []byte(st), nil)
			assert.ErrorIs(t, err, ErrState, st)
		}
	})
}

func TestSessionCall(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile)
	s, err := NewSession(testConfig(reg.Snapshot(), OpenAIChat, nil, nil))
	require.NoError(t, err)
	res := s.Call(t.Context(), "Read", json.RawMessage(`{}`))
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, `"Read"`)
	tool, deferred, ok := s.Lookup("VideoGen")
	require.True(t, ok)
	assert.True(t, deferred)
	assert.Equal(t, "VideoGen", tool.Name)
	_, _, ok = s.Lookup("tool_search")
	assert.True(t, ok)
	_, _, ok = s.Lookup("nope")
	assert.False(t, ok)
	names := s.visibleNames()
	assert.IsIncreasing(t, names)
	assert.Contains(t, names, "VideoGen")
	assert.Contains(t, names, "defer_execute")
}

func TestAppendRequestMatchesBuildRequest(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile)
	for _, p := range providers {
		a, err := NewSession(testConfig(reg.Snapshot(), p, nil, nil))
		require.NoError(t, err)
		b, err := NewSession(testConfig(reg.Snapshot(), p, nil, nil))
		require.NoError(t, err)
		buf := []byte("keep:")
		for _, tr := range script() {
			want, err := a.BuildRequest(tr)
			require.NoError(t, err)
			buf, err = b.AppendRequest(buf[:5], tr)
			require.NoError(t, err)
			require.Equal(t, "keep:", string(buf[:5]))
			require.Equal(t, want, buf[5:])
		}
	}
}

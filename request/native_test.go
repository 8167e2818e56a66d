package request

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
)

// allDeferred defers every github tool.
func allDeferred() *deferral.Policy {
	return &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("project", "Defer(mcp__github__*)")}}
}

// nativeCases are the native modes each provider accepts.
var nativeCases = []struct {
	p          Provider
	mode       ToolSearch
	searchType string
}{
	{Anthropic, Native, "tool_search_tool_bm25_20251119"},
	{Anthropic, NativeRegex, "tool_search_tool_regex_20251119"},
	{OpenAIResponses, Native, "tool_search"},
}

// TestNativeToolsShape checks tools[] in the native modes against the
// plan: every deferred tool with its schema and defer_loading, the
// provider's search tool once, after the resident tools and before the
// deferred ones, no tool_search or defer_execute, and on Anthropic the
// tools breakpoint on a non-deferred tool, never on a deferred one.
func TestNativeToolsShape(t *testing.T) {
	policies := map[string]*deferral.Policy{"some resident": githubPolicy(), "all deferred": allDeferred()}
	for _, c := range nativeCases {
		for pname, policy := range policies {
			t.Run(fmt.Sprintf("%s/%s/%s", c.p, c.mode, pname), func(t *testing.T) {
				reg, _ := loadCatalogs(t, 0, githubFile)
				cfg := testConfig(reg.Snapshot(), c.p, policy, nil)
				cfg.ToolSearch = c.mode
				s, err := NewSession(cfg)
				require.NoError(t, err)
				body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
				require.NoError(t, err)
				checkRules(t, c.p, body)
				var req struct {
					Tools []map[string]any `json:"tools"`
				}
				require.NoError(t, json.Unmarshal(body, &req))
				plan := s.current().Plan()
				require.NotEmpty(t, plan.Deferred())
				assert.Empty(t, s.current().Index(), "no tool_search index in a native mode")
				require.Len(t, req.Tools, len(plan.Resident())+len(plan.Deferred())+1)

				searchAt, firstDeferred, lastResident, breakpoints := -1, -1, -1, 0
				seen := map[string]bool{}
				for i, tool := range req.Tools {
					if tool["type"] == c.searchType {
						assert.Equal(t, -1, searchAt, "one search tool")
						searchAt = i
						assert.NotContains(t, tool, "defer_loading", "the search tool is never deferred")
					} else {
						name, _ := tool["name"].(string)
						require.NotEmpty(t, name)
						assert.NotEqual(t, registry.ToolSearchName, name)
						assert.NotEqual(t, registry.DeferExecuteName, name)
						seen[name] = true
						schema := tool["input_schema"]
						if c.p == OpenAIResponses {
							schema = tool["parameters"]
						}
						assert.NotNil(t, schema, "%s keeps its schema", name)
						switch plan.State(name) {
						case deferral.Deferred:
							assert.Equal(t, true, tool["defer_loading"], name)
							assert.NotContains(t, tool, "cache_control", "never a breakpoint on deferred %s", name)
							if firstDeferred < 0 {
								firstDeferred = i
							}
						case deferral.Resident:
							assert.NotContains(t, tool, "defer_loading", name)
							lastResident = i
						default:
							t.Errorf("%s is neither resident nor deferred", name)
						}
					}
					if _, ok := tool["cache_control"]; ok {
						breakpoints++
						assert.NotEqual(t, true, tool["defer_loading"])
					}
				}
				for _, d := range plan.Deferred() {
					assert.True(t, seen[d.Name], "deferred %s in tools[]", d.Name)
				}
				require.GreaterOrEqual(t, searchAt, 0, "the provider's search tool is in tools[]")
				assert.Less(t, lastResident, searchAt, "search tool after the resident tools")
				assert.Less(t, searchAt, firstDeferred, "search tool before the deferred tools")
				nonDeferred := 0
				for _, tool := range req.Tools {
					if tool["defer_loading"] != true {
						nonDeferred++
					}
				}
				assert.GreaterOrEqual(t, nonDeferred, 1, "at least one tool stays non-deferred")
				if c.p == Anthropic {
					assert.Equal(t, 1, breakpoints, "one tools breakpoint")
					assert.Contains(t, req.Tools[searchAt], "cache_control", "on the last non-deferred tool")
				} else {
					assert.Zero(t, breakpoints)
				}
			})
		}
	}
}

// TestNativeNothingDeferred: with nothing deferred a native mode sends
// the same tools[] as Portable, without a search tool.
func TestNativeNothingDeferred(t *testing.T) {
	for _, c := range nativeCases {
		t.Run(string(c.p)+"/"+string(c.mode), func(t *testing.T) {
			reg, _ := loadCatalogs(t, 0, githubFile)
			portable, err := NewSession(testConfig(reg.Snapshot(), c.p, nil, nil))
			require.NoError(t, err)
			cfg := testConfig(reg.Snapshot(), c.p, nil, nil)
			cfg.ToolSearch = c.mode
			native, err := NewSession(cfg)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(portable.Prefix(), native.Prefix()), "same prefix as Portable: %v", wire.Diff(portable.Prefix(), native.Prefix()))
			assert.NotContains(t, string(native.Prefix()), c.searchType+`"`)
		})
	}
}

// TestNativeConfigErrors: providers without the mode are refused at
// NewSession, naming the provider and the way out.
func TestNativeConfigErrors(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	cases := []struct {
		p    Provider
		mode ToolSearch
		want []string
	}{
		{OpenAIChat, Native, []string{`"openai-chat"`, "no native tool search", "Portable"}},
		{OpenAIChat, NativeRegex, []string{`"openai-chat"`, "Anthropic"}},
		{OpenAIResponses, NativeRegex, []string{`"openai-responses"`, "regex"}},
		{Anthropic, "server", []string{`"server"`, "want"}},
	}
	for _, c := range cases {
		t.Run(string(c.p)+"/"+string(c.mode), func(t *testing.T) {
			cfg := testConfig(reg.Snapshot(), c.p, allDeferred(), nil)
			cfg.ToolSearch = c.mode
			_, err := NewSession(cfg)
			require.ErrorIs(t, err, ErrConfig)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	for _, m := range []ToolSearch{"", Portable} {
		cfg := testConfig(reg.Snapshot(), OpenAIChat, allDeferred(), nil)
		cfg.ToolSearch = m
		_, err := NewSession(cfg)
		assert.NoError(t, err, "%q", m)
	}
}

// TestNativePortableDistinctPrefixes: the mode is part of the cache key.
func TestNativePortableDistinctPrefixes(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	cache := NewCache()
	var prefixes []string
	for _, m := range []ToolSearch{"", Portable, Native} {
		cfg := testConfig(reg.Snapshot(), Anthropic, allDeferred(), cache)
		cfg.ToolSearch = m
		s, err := NewSession(cfg)
		require.NoError(t, err)
		prefixes = append(prefixes, string(s.Prefix()))
	}
	assert.Equal(t, prefixes[0], prefixes[1], `"" is Portable`)
	assert.NotEqual(t, prefixes[0], prefixes[2])
	assert.Equal(t, 2, cache.Len())
}

// governed builds a registry of three tools with counting handlers.
func governed(t *testing.T) (*registry.Snapshot, map[string]*atomic.Int32) {
	t.Helper()
	counts := map[string]*atomic.Int32{}
	reg := registry.New(nil)
	for _, name := range []string{"alpha", "beta", "gamma", "Read"} {
		n := new(atomic.Int32)
		counts[name] = n
		require.NoError(t, reg.Register(registry.Tool{
			Name:        name,
			Description: "Tool " + name + ".",
			RawSchema:   json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`),
			Handler: func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
				n.Add(1)
				return registry.Result{Text: name + " ran with " + string(params)}, nil
			},
		}))
	}
	return reg.Snapshot(), counts
}

// TestSameGovernanceEveryMode sends the same calls through Portable
// (tool_search, then defer_execute) and the native modes (a direct call
// by the tool's own name): the same handlers run, the same number of
// times, the deny rule blocks in every mode, a hook sees the target's
// name, and the tool hidden by the session's mode is unreachable.
func TestSameGovernanceEveryMode(t *testing.T) {
	modes := []struct {
		p    Provider
		mode ToolSearch
	}{{Anthropic, Portable}, {OpenAIResponses, Portable}, {OpenAIChat, Portable}, {Anthropic, Native}, {Anthropic, NativeRegex}, {OpenAIResponses, Native}}
	for _, m := range modes {
		t.Run(string(m.p)+"/"+string(m.mode), func(t *testing.T) {
			snap, counts := governed(t)
			var hooked []string
			d, err := execute.New(&execute.Options{
				Permissions: []execute.Permission{{Action: execute.Deny, Pattern: "beta"}},
				Hooks: []execute.Hook{{Name: "audit", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
					hooked = append(hooked, c.Name)
					return execute.Verdict{}
				}}},
			})
			require.NoError(t, err)
			cfg := testConfig(snap, m.p, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(alpha)", "Defer(beta)", "Defer(gamma)")}}, nil)
			cfg.View = deferral.View{Mode: deferral.Mode{Name: "no-gamma", Allow: []string{"alpha", "beta", "Read"}}}
			cfg.ToolSearch, cfg.Dispatcher = m.mode, d
			s, err := NewSession(cfg)
			require.NoError(t, err)
			ctx := context.Background()
			// call invokes target the way the mode's model would.
			call := func(target, params string) registry.Result {
				if m.mode.native() {
					return s.Call(ctx, target, json.RawMessage(params))
				}
				return s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+target+`","params":`+params+`}`))
			}
			if !m.mode.native() {
				r := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["alpha","beta"]}`))
				require.False(t, r.IsError, r.Text)
			} else {
				r := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["alpha"]}`))
				assert.True(t, r.IsError, "no portable tool_search in a native mode")
				r = s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"alpha","params":{"x":"1"}}`))
				assert.True(t, r.IsError, "no defer_execute in a native mode")
			}
			r := call("alpha", `{"x":"1"}`)
			assert.False(t, r.IsError, r.Text)
			assert.Contains(t, r.Text, `alpha ran with {"x":"1"}`)
			r = call("alpha", `{"x":2}`)
			assert.True(t, r.IsError, "schema validation in every mode")
			r = call("beta", `{"x":"1"}`)
			assert.True(t, r.IsError, "deny rule")
			r = call("gamma", `{"x":"1"}`)
			assert.True(t, r.IsError, "hidden tool")
			assert.NotContains(t, string(s.Prefix()), `"gamma"`, "hidden tool absent from tools[]")
			_, _, ok := s.Lookup("gamma")
			assert.False(t, ok)

			assert.Equal(t, int32(1), counts["alpha"].Load())
			assert.Zero(t, counts["beta"].Load())
			assert.Zero(t, counts["gamma"].Load())
			want := []string{"alpha"}
			if !m.mode.native() {
				// A hook for every tool sees the portable tool_search too:
				// searches go through the dispatcher.
				want = []string{registry.ToolSearchName, "alpha"}
			}
			assert.Equal(t, want, hooked, "the hook sees the target's name, once")
		})
	}
}

// nativeParts are the provider-native parts a provider-side search leaves
// in an assistant message.
func nativeParts(p Provider, id string) []json.RawMessage {
	if p == Anthropic {
		return []json.RawMessage{
			json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_` + id + `","name":"tool_search_tool_bm25","input":{"query":"list issues"}}`),
			json.RawMessage(`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_` + id + `","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"mcp__github__list_issues"}]}}`),
		}
	}
	return []json.RawMessage{
		json.RawMessage(`{"type":"tool_search_call","id":"ts_` + id + `","status":"completed","execution":"server","arguments":{"query":"list issues"}}`),
		json.RawMessage(`{"type":"tool_search_output","id":"tso_` + id + `","status":"completed","execution":"server","tools":[]}`),
	}
}

// nativeScript is a conversation in a native mode: the provider searches,
// the model calls the found tools directly.
func nativeScript(p Provider, turns int) []Turn {
	out := []Turn{{Messages: []Message{userMsg("Find open issues about flaky tests")}, Inject: []string{"<system-reminder>clean tree</system-reminder>"}}}
	for i := range turns {
		id := fmt.Sprint(i)
		out = append(out, Turn{Messages: []Message{
			{Role: RoleAssistant, Text: "Searching.", Native: nativeParts(p, id), ToolCalls: []ToolCall{
				{ID: "call_" + id, Name: "mcp__github__list_issues", Arguments: json.RawMessage(`{"owner":"o","repo":"r"}`)},
			}},
			result("call_"+id, "[]"),
			userMsg(fmt.Sprintf("and again (%d)", i)),
		}})
	}
	return out
}

// TestNativePrefixStable runs a multi-turn native conversation with
// provider-side searches and direct calls of deferred tools: the prefix
// is byte-identical on every turn, and each body extends the previous one.
func TestNativePrefixStable(t *testing.T) {
	for _, c := range nativeCases {
		t.Run(string(c.p)+"/"+string(c.mode), func(t *testing.T) {
			reg, _ := loadCatalogs(t, 0, githubFile)
			cfg := testConfig(reg.Snapshot(), c.p, allDeferred(), nil)
			cfg.ToolSearch = c.mode
			s, err := NewSession(cfg)
			require.NoError(t, err)
			prefix := string(s.Prefix())
			var bodies [][]byte
			for _, turn := range nativeScript(c.p, 12) {
				b, err := s.BuildRequest(turn)
				require.NoError(t, err)
				require.True(t, json.Valid(b))
				checkRules(t, c.p, b)
				bodies = append(bodies, b)
				assert.Equal(t, prefix, string(s.Prefix()))
			}
			assertStablePrefix(t, bodies...)
			last := string(bodies[len(bodies)-1])
			assert.Contains(t, last, string(nativeParts(c.p, "11")[1]), "native parts sent back verbatim")
			assert.Equal(t, len(s.current().Plan().Deferred()), strings.Count(last, `"defer_loading":true`), "every deferred tool, once")
		})
	}
}

// TestNativePartsRejected: native parts are JSON objects on assistant
// messages of a provider that has them.
func TestNativePartsRejected(t *testing.T) {
	cases := []struct {
		name string
		p    Provider
		msgs []Message
		want string
	}{
		{"chat", OpenAIChat, []Message{userMsg("x"), {Role: RoleAssistant, Native: []json.RawMessage{json.RawMessage(`{}`)}}}, "no native parts"},
		{"not an object", Anthropic, []Message{userMsg("x"), {Role: RoleAssistant, Native: []json.RawMessage{json.RawMessage(`[1]`)}}}, "want a JSON object"},
		{"invalid", OpenAIResponses, []Message{userMsg("x"), {Role: RoleAssistant, Native: []json.RawMessage{json.RawMessage(`{"a":`)}}}, "not valid JSON"},
		{"empty", OpenAIResponses, []Message{userMsg("x"), {Role: RoleAssistant, Native: []json.RawMessage{nil}}}, "not valid JSON"},
		{"on a user message", Anthropic, []Message{{Role: RoleUser, Text: "x", Native: []json.RawMessage{json.RawMessage(`{}`)}}}, "assistant messages"},
	}
	reg, _ := loadCatalogs(t, 0, githubFile)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewSession(testConfig(reg.Snapshot(), c.p, nil, nil))
			require.NoError(t, err)
			_, err = s.BuildRequest(Turn{Messages: c.msgs})
			require.ErrorIs(t, err, ErrInvalidMessage)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// TestNativeNoSelfBuilt: a provider-side search cannot find a tool added
// after the session started.
func TestNativeNoSelfBuilt(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	cfg := testConfig(reg.Snapshot(), Anthropic, allDeferred(), nil)
	cfg.ToolSearch = Native
	s, err := NewSession(cfg)
	require.NoError(t, err)
	err = s.RegisterSelfBuilt(registry.Tool{Name: "mine", Description: "Mine.", RawSchema: json.RawMessage(`{"type":"object"}`)})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "Portable")
}

package request

import (
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

var clientProviders = []Provider{Anthropic, OpenAIResponses}

// replyBody constructs a provider reply carrying calls, as the provider
// sends it: Anthropic tool_use blocks; on the Responses API function_call
// items, and a tool_search call as a client tool_search_call item.
func replyBody(p Provider, calls ...ToolCall) []byte {
	var parts []string
	for _, c := range calls {
		switch {
		case p == Anthropic:
			parts = append(parts, fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":%s}`, c.ID, c.Name, c.Arguments))
		case c.Name == registry.ToolSearchName:
			parts = append(parts, fmt.Sprintf(`{"type":"tool_search_call","id":"ts_%s","call_id":%q,"execution":"client","status":"completed","arguments":%s}`, c.ID, c.ID, c.Arguments))
		default:
			args, _ := json.Marshal(string(c.Arguments))
			parts = append(parts, fmt.Sprintf(`{"type":"function_call","id":"fc_%s","call_id":%q,"name":%q,"arguments":%s,"status":"completed"}`, c.ID, c.ID, c.Name, args))
		}
	}
	if p == Anthropic {
		return []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[` + strings.Join(parts, ",") + `],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`)
	}
	return []byte(`{"id":"resp_1","object":"response","status":"completed","output":[` + strings.Join(parts, ",") + `],"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}`)
}

// clientSession is a Client session over governed's tools (alpha, beta
// and gamma deferred, Read resident), beta denied, a hook recording the
// names it sees, ready for self-built tools.
func clientSession(t *testing.T, p Provider) (*Session, map[string]*countingHandler, *[]string) {
	t.Helper()
	snap, counts := governed(t)
	hooked := &[]string{}
	d, err := execute.New(&execute.Options{
		Permissions: []execute.Permission{{Action: execute.Deny, Pattern: "beta"}},
		// Searches run the hooks too (issue 26); this one records the
		// calls of tools, and searchSeen the searches.
		Hooks: []execute.Hook{{Name: "audit", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
			if c.Name == registry.ToolSearchName {
				searchSeen.Add(1)
				return execute.Verdict{}
			}
			*hooked = append(*hooked, c.Name)
			return execute.Verdict{}
		}}},
	})
	require.NoError(t, err)
	cfg := testConfig(snap, p, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(alpha)", "Defer(beta)", "Defer(gamma)")}}, nil)
	cfg.ToolSearch, cfg.Dispatcher, cfg.SelfBuilt = Client, d, true
	s, err := NewSession(cfg)
	require.NoError(t, err)
	out := map[string]*countingHandler{}
	for n, c := range counts {
		out[n] = &countingHandler{c.Load}
	}
	return s, out, hooked
}

type countingHandler struct{ load func() int32 }

// searchSeen counts the searches clientSession's hook saw.
var searchSeen atomic.Int32

// answerAll decodes a constructed reply and answers its calls.
func answerAll(t *testing.T, s *Session, p Provider, calls ...ToolCall) []Message {
	t.Helper()
	rep, err := DecodeReply(p, replyBody(p, calls...))
	require.NoError(t, err)
	require.Len(t, rep.Message.ToolCalls, len(calls))
	msgs := []Message{rep.Message}
	for _, c := range rep.Message.ToolCalls {
		msgs = append(msgs, s.Answer(context.Background(), c))
	}
	return msgs
}

// TestClientConversation runs a conversation in Client mode on both
// providers through constructed replies: toolshelf's search answers in
// the provider's reference form, the model calls the found tool by its own
// name through the dispatcher, a denied call is refused, a self-built tool
// that arrives mid-session takes the portable path, and the prefix never
// moves. Every body passes the rule book.
func TestClientConversation(t *testing.T) {
	for _, p := range clientProviders {
		t.Run(string(p), func(t *testing.T) {
			s, counts, hooked := clientSession(t, p)
			prefix := string(s.Prefix())
			var bodies [][]byte
			build := func(turn Turn) string {
				t.Helper()
				b, err := s.BuildRequest(turn)
				require.NoError(t, err)
				checkRules(t, p, b)
				assert.Empty(t, wire.Check(string(p), b))
				assert.Equal(t, prefix, string(s.Prefix()), "prefix identical")
				bodies = append(bodies, b)
				return string(b)
			}
			build(Turn{Messages: []Message{userMsg("run alpha")}})

			// 1. The model searches; toolshelf answers with references.
			msgs := answerAll(t, s, p, ToolCall{ID: "call_1", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"queries":["alpha"]}`)})
			assert.Equal(t, []string{"alpha"}, msgs[1].ToolReferences)
			assert.False(t, msgs[1].IsError)
			assert.True(t, s.Loaded("alpha"))
			body := build(Turn{Messages: msgs})
			if p == Anthropic {
				assert.Contains(t, body, `{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"tool_reference","tool_name":"alpha"}]`)
			} else {
				assert.Contains(t, body, `{"type":"tool_search_call","call_id":"call_1","execution":"client","status":"completed","arguments":{"queries":["alpha"]}}`)
				assert.Contains(t, body, `{"type":"tool_search_output","call_id":"call_1","execution":"client","status":"completed","tools":[{"type":"function","name":"alpha","description":"Tool alpha.","parameters":{`)
			}

			// 2. Direct calls of the found tool, and of a denied one.
			msgs = answerAll(t, s, p,
				ToolCall{ID: "call_2", Name: "alpha", Arguments: json.RawMessage(`{"x":"1"}`)},
				ToolCall{ID: "call_3", Name: "beta", Arguments: json.RawMessage(`{"x":"1"}`)})
			assert.False(t, msgs[1].IsError, msgs[1].Text)
			assert.Contains(t, msgs[1].Text, `alpha ran with {"x":"1"}`)
			assert.True(t, msgs[2].IsError, "beta is denied")
			assert.Equal(t, int32(1), counts["alpha"].load())
			assert.Zero(t, counts["beta"].load())
			assert.Equal(t, []string{"alpha"}, *hooked, "the hook sees the target's own name")

			// 3. A self-built tool arrives after the prefix froze: announced,
			// then found and called on the portable path.
			ran := 0
			require.NoError(t, s.RegisterSelfBuilt(registry.Tool{Name: "mine", Description: "Count lines.", RawSchema: json.RawMessage(`{"type":"object"}`),
				Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
					ran++
					return registry.Result{Text: "42"}, nil
				}}))
			body = build(Turn{Messages: append(msgs, userMsg("now count"))})
			assert.Contains(t, body, "<new_deferred_tool>\\nmine: Count lines.")
			msgs = answerAll(t, s, p, ToolCall{ID: "call_4", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"tool_names":["mine"]}`)})
			if p == Anthropic {
				// Not in tools[]: no reference; its schema as text.
				assert.Empty(t, msgs[1].ToolReferences)
				assert.Contains(t, msgs[1].Text, "mine")
				assert.Contains(t, msgs[1].Text, "defer_execute")
			} else {
				assert.Equal(t, []string{"mine"}, msgs[1].ToolReferences)
			}
			body = build(Turn{Messages: msgs})
			if p == OpenAIResponses {
				assert.Contains(t, body, `"tools":[{"type":"function","name":"mine","description":"Count lines.","parameters":{"type":"object"},"strict":false}]}`)
			}
			msgs = answerAll(t, s, p, ToolCall{ID: "call_5", Name: registry.DeferExecuteName, Arguments: json.RawMessage(`{"tool_name":"mine","params":{}}`)})
			assert.False(t, msgs[1].IsError, msgs[1].Text)
			assert.Equal(t, 1, ran)
			build(Turn{Messages: append(msgs, userMsg("thanks"))})
			assertStablePrefix(t, bodies...)
		})
	}
}

// TestClientToolsShape: in Client mode tools[] holds the resident tools,
// toolshelf's tool_search (the client form on the Responses API), then
// every deferred tool with its schema and defer_loading; the Anthropic
// breakpoint sits on the last tool that is not deferred; and the prefix is
// the same whatever order the tools were registered in.
func TestClientToolsShape(t *testing.T) {
	for _, p := range clientProviders {
		t.Run(string(p), func(t *testing.T) {
			var prefixes []string
			for _, seed := range []uint64{0, 7, 99} {
				reg, _ := loadCatalogs(t, seed, githubFile)
				cfg := testConfig(reg.Snapshot(), p, githubPolicy(), nil)
				cfg.ToolSearch = Client
				s, err := NewSession(cfg)
				require.NoError(t, err)
				prefixes = append(prefixes, string(s.Prefix()))
				body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
				require.NoError(t, err)
				checkRules(t, p, body)
				var req struct {
					Tools []map[string]any `json:"tools"`
				}
				require.NoError(t, json.Unmarshal(body, &req))
				plan := s.current().Plan()
				require.Len(t, req.Tools, len(plan.Resident())+1+len(plan.Deferred()))
				searchAt := len(plan.Resident())
				st := req.Tools[searchAt]
				if p == OpenAIResponses {
					assert.Equal(t, "tool_search", st["type"])
					assert.Equal(t, "client", st["execution"])
					assert.NotNil(t, st["parameters"])
					assert.Contains(t, string(s.Prefix()), "<available_deferred_tools>", "the index in the instructions")
				} else {
					assert.Equal(t, registry.ToolSearchName, st["name"])
					assert.Contains(t, st, "cache_control", "the breakpoint on the last tool not deferred")
					assert.Contains(t, st["description"], "<available_deferred_tools>")
				}
				assert.Contains(t, fmt.Sprint(st["description"]), "call it directly by its own name")
				for i, tool := range req.Tools {
					deferred := i > searchAt
					assert.Equal(t, deferred, tool["defer_loading"] == true, "%d %v", i, tool["name"])
					if deferred {
						assert.NotContains(t, tool, "cache_control")
						assert.Equal(t, deferral.Deferred, plan.State(tool["name"].(string)))
					}
				}
			}
			assert.Equal(t, prefixes[0], prefixes[1])
			assert.Equal(t, prefixes[0], prefixes[2])
		})
	}
}

// TestClientConfig: Chat Completions has no reference form, the Responses
// API needs a gpt-5.4 or later model, and without Config.SelfBuilt a
// Client session refuses self-built tools (it has no defer_execute).
func TestClientConfig(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	cfg := testConfig(reg.Snapshot(), OpenAIChat, allDeferred(), nil)
	cfg.ToolSearch = Client
	_, err := NewSession(cfg)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "reference form")

	cfg = testConfig(reg.Snapshot(), OpenAIResponses, allDeferred(), nil)
	cfg.ToolSearch, cfg.Model = Client, "gpt-4.1"
	_, err = NewSession(cfg)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "gpt-5.4")

	cfg = testConfig(reg.Snapshot(), Anthropic, allDeferred(), nil)
	cfg.ToolSearch = Client
	s, err := NewSession(cfg)
	require.NoError(t, err)
	assert.NotContains(t, string(s.Prefix()), `"name":"defer_execute"`)
	err = s.RegisterSelfBuilt(registry.Tool{Name: "mine", Description: "Mine.", RawSchema: json.RawMessage(`{"type":"object"}`)})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "Config.SelfBuilt")
}

// TestClientReferencesChecked: a tool result may only reference tools the
// provider can load; anything else is refused before any bytes are built.
func TestClientReferencesChecked(t *testing.T) {
	for _, p := range clientProviders {
		t.Run(string(p), func(t *testing.T) {
			s, _, _ := clientSession(t, p)
			_, err := s.BuildRequest(Turn{Messages: []Message{userMsg("go")}})
			require.NoError(t, err)
			search := call("c1", registry.ToolSearchName, `{"queries":["x"]}`)
			for name, res := range map[string]Message{
				"resident":  {Role: RoleTool, CallID: "c1", ToolReferences: []string{"Read"}},
				"unknown":   {Role: RoleTool, CallID: "c1", ToolReferences: []string{"nope"}},
				"twice":     {Role: RoleTool, CallID: "c1", ToolReferences: []string{"alpha", "alpha"}},
				"and error": {Role: RoleTool, CallID: "c1", ToolReferences: []string{"alpha"}, IsError: true, Text: "x"},
			} {
				_, err := s.BuildRequest(Turn{Messages: []Message{search, res}})
				require.ErrorIs(t, err, ErrInvalidMessage, name)
			}
			portable, err := NewSession(testConfig(s.cfg.Snapshot, p, allDeferred(), nil))
			require.NoError(t, err)
			_, err = portable.BuildRequest(Turn{Messages: []Message{userMsg("go"), search, {Role: RoleTool, CallID: "c1", ToolReferences: []string{"alpha"}}}})
			require.ErrorIs(t, err, ErrInvalidMessage)
			assert.Contains(t, err.Error(), "client")
		})
	}
}

// TestClientMiss: a search that finds nothing to load answers with the
// search's text (the ladder), never with an empty reference list.
func TestClientMiss(t *testing.T) {
	s, _, _ := clientSession(t, Anthropic)
	m := s.Answer(context.Background(), ToolCall{ID: "c", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"tool_names":["nope"]}`)})
	assert.Empty(t, m.ToolReferences)
	assert.NotEmpty(t, m.Text)
}

// TestWireClientRules: the rule book flags a reference to a tool that is
// not deferred in tools[], and a tool_search_output answering no call.
func TestWireClientRules(t *testing.T) {
	a := `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object"},"defer_loading":true},{"name":"b","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"b","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"tool_reference","tool_name":"a"},{"type":"tool_reference","tool_name":"b"}]}]}]}`
	v := wire.Check(string(Anthropic), []byte(a))
	require.Len(t, v, 1)
	assert.Equal(t, "tool-reference", v[0].Rule)
	assert.Contains(t, v[0].Path, "content[1].tool_name")

	r := `{"model":"gpt-5.4","tools":[{"type":"tool_search","execution":"client"}],"input":[{"type":"tool_search_call","call_id":"c1","execution":"client","arguments":{}},{"type":"tool_search_output","call_id":"c1","execution":"client","tools":[{"type":"function","name":"a"}]},{"type":"tool_search_output","call_id":"c2","execution":"client","tools":[{"type":"web_search"}]}]}`
	v = wire.Check(string(OpenAIResponses), []byte(r))
	var rules []string
	for _, x := range v {
		rules = append(rules, x.Rule+" "+x.Path)
	}
	assert.ElementsMatch(t, []string{"client-tool-search input[2].call_id", "client-tool-search input[2].tools[0].type"}, rules)
}

// TestClientRestore: a Client session saved after a search answered by
// references restores to one that sends the same bytes, the search items
// and references included.
func TestClientRestore(t *testing.T) {
	for _, p := range clientProviders {
		t.Run(string(p), func(t *testing.T) {
			s, _, _ := clientSession(t, p)
			_, err := s.BuildRequest(Turn{Messages: []Message{userMsg("run alpha")}})
			require.NoError(t, err)
			msgs := answerAll(t, s, p, ToolCall{ID: "call_1", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"tool_names":["alpha","gamma"]}`)})
			require.Equal(t, []string{"alpha", "gamma"}, msgs[1].ToolReferences)
			_, err = s.BuildRequest(Turn{Messages: msgs})
			require.NoError(t, err)
			saved, err := s.MarshalState()
			require.NoError(t, err)
			r, err := RestoreSession(s.cfg, saved, nil)
			require.NoError(t, err)
			next := Turn{Messages: answerAll(t, s, p, ToolCall{ID: "call_2", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"queries":["nothing matches this"]}`)})}
			a, err := s.BuildRequest(next)
			require.NoError(t, err)
			b, err := r.BuildRequest(next)
			require.NoError(t, err)
			assert.Equal(t, string(a), string(b))
			assert.True(t, r.Loaded("alpha") && r.Loaded("gamma"), "the loaded set is restored")
			if p == OpenAIResponses {
				assert.Contains(t, string(b), `{"type":"tool_search_output","call_id":"call_2","execution":"client","status":"completed","tools":[`)
			}
		})
	}
}

// TestClientAnswerHostile: whatever the model sends as tool_search
// arguments, Answer does not panic, and every reference it returns is one
// BuildRequest accepts (a deferred tool of tools[]).
func TestClientAnswerHostile(t *testing.T) {
	for _, p := range clientProviders {
		s, _, _ := clientSession(t, p)
		_, err := s.BuildRequest(Turn{Messages: []Message{userMsg("go")}})
		require.NoError(t, err)
		for i, args := range []string{``, `null`, `[]`, `"x"`, `{"tool_names":[1,2]}`, `{"tool_names":["Read","alpha","alpha","../etc"]}`,
			`{"queries":["` + strings.Repeat("alpha ", 5000) + `"]}`, `{"queries":["select:alpha,beta,Read,nope"]}`, `{"limit":-1,"queries":["beta"]}`, `{"queries":[""],"tool_names":[""]}`} {
			c := ToolCall{ID: fmt.Sprint("c", i), Name: registry.ToolSearchName, Arguments: json.RawMessage(args)}
			m := s.Answer(context.Background(), c)
			if checkArguments(c.Arguments) != nil {
				// Not a call a decoded reply can hold: Answer only must not panic.
				assert.Empty(t, m.ToolReferences)
				continue
			}
			_, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{c}}, m}})
			assert.NoError(t, err, "%s %s: %v", p, args, m.ToolReferences)
		}
	}
}

// TestClientSearchGoverned: a client-executed search is a call like the
// others (issue 26): its hooks see it, and Deny(tool_search) answers denied
// with no reference and nothing loaded.
func TestClientSearchGoverned(t *testing.T) {
	s, _, hooked := clientSession(t, Anthropic)
	before := searchSeen.Load()
	m := s.Answer(context.Background(), ToolCall{ID: "c0", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"tool_names":["gamma"]}`)})
	require.Equal(t, []string{"gamma"}, m.ToolReferences, m.Text)
	assert.Equal(t, before+1, searchSeen.Load(), "the search ran the hooks")
	assert.NotContains(t, *hooked, registry.ToolSearchName)

	snap, _ := governed(t)
	d, err := execute.New(&execute.Options{Permissions: execute.MustPermissions("Deny(tool_search)")})
	require.NoError(t, err)
	cfg := testConfig(snap, Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(alpha)")}}, nil)
	cfg.ToolSearch, cfg.Dispatcher = Client, d
	denied, err := NewSession(cfg)
	require.NoError(t, err)
	m = denied.Answer(context.Background(), ToolCall{ID: "c1", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"tool_names":["alpha"]}`)})
	assert.Empty(t, m.ToolReferences)
	assert.True(t, m.IsError)
	assert.Contains(t, m.Text, "denied")
	assert.False(t, denied.Loaded("alpha"))
}

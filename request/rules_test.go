package request

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
)

// serverCatalogs are the MCP servers' catalogs under testdata/catalogs.
var serverCatalogs = []string{
	"catalogs/everything.tools.json", "catalogs/fetch.tools.json", "catalogs/filesystem.tools.json",
	"catalogs/git.tools.json", "catalogs/github.tools.json", "catalogs/kubernetes.tools.json",
	"catalogs/memory.tools.json", "catalogs/playwright.tools.json",
	"catalogs/sequential-thinking.tools.json", "catalogs/time.tools.json",
}

// quickstartCatalogs are the quickstart's four servers: 249 tools.
var quickstartCatalogs = []string{
	"catalogs/github.tools.json", "catalogs/playwright.tools.json",
	"catalogs/kubernetes.tools.json", "catalogs/filesystem.tools.json",
}

func allDeferredPolicy() *deferral.Policy { return &deferral.Policy{Default: deferral.DefaultDefer} }

// assertConforms checks body against the rule book and, field by field,
// the two limits the issue names: every description within the cap on
// OpenAI, every name valid.
func assertConforms(t *testing.T, p Provider, body []byte) {
	t.Helper()
	checkRules(t, p, body)
	var req struct {
		Tools []struct {
			Name, Description string
			Function          *struct{ Name, Description string }
		}
	}
	require.NoError(t, json.Unmarshal(body, &req))
	if p == Gemini && len(req.Tools) > 0 {
		// One tools[] entry holds the declarations: check those.
		var g struct {
			Tools []struct {
				FunctionDeclarations json.RawMessage `json:"functionDeclarations"`
			}
		}
		require.NoError(t, json.Unmarshal(body, &g))
		require.Len(t, g.Tools, 1)
		req.Tools = nil
		require.NoError(t, json.Unmarshal(g.Tools[0].FunctionDeclarations, &req.Tools))
		require.NotEmpty(t, req.Tools)
	}
	for i, tl := range req.Tools {
		name, desc := tl.Name, tl.Description
		if tl.Function != nil {
			name, desc = tl.Function.Name, tl.Function.Description
		}
		if name == "" {
			continue // a provider's own search tool, named by its type
		}
		assert.True(t, toolname.Valid(name), "tools[%d] name %q", i, name)
		if p == Gemini {
			assert.True(t, toolname.GeminiValid(name), "tools[%d] name %q", i, name)
		}
		if capsDescriptions(p) {
			assert.LessOrEqual(t, utf8.RuneCountInString(desc), maxDescription, "tools[%d] %s description", i, name)
		}
	}
}

// conversation is a first turn and a second with a call and its result.
func conversation(call string) []Turn {
	return []Turn{
		{Messages: []Message{userMsg("Open a pull request")}},
		{Messages: []Message{
			{Role: RoleAssistant, Text: "Looking.", ToolCalls: []ToolCall{{ID: "c1", Name: call, Arguments: json.RawMessage(`{"queries":["pull request"]}`)}}},
			result("c1", "found"),
			userMsg("go on"),
		}},
	}
}

// TestEveryCatalogConforms: for each provider and each catalog under
// testdata/ (and all servers together), with everything deferred and with
// nothing deferred, every body conforms to the rule book. Before the rule
// book, the OpenAI bodies carried tool_search descriptions of up to 12,502
// characters and github's 1,115-character pull_request_review_write.
func TestEveryCatalogConforms(t *testing.T) {
	sets := [][]string{serverCatalogs, {harnessFile}, {"benchmarks/bc025/catalog.json"},
		{"benchmarks/bfcl-multiple/catalog.json"}, {"benchmarks/metatool/catalog.json"}}
	for _, c := range serverCatalogs {
		sets = append(sets, []string{c})
	}
	for _, files := range sets {
		reg, _ := loadCatalogs(t, 0, files...)
		snap := reg.Snapshot()
		name := filepath.Base(files[0])
		if len(files) > 1 {
			name = "all servers"
		}
		for _, p := range providers {
			for _, pol := range []struct {
				name   string
				policy *deferral.Policy
			}{{"all deferred", allDeferredPolicy()}, {"none deferred", &deferral.Policy{}}} {
				t.Run(name+"/"+string(p)+"/"+pol.name, func(t *testing.T) {
					cfg := testConfig(snap, p, pol.policy, nil)
					cfg.View = deferral.View{Tier: registry.TierFull}
					s, err := NewSession(cfg)
					plan, perr := pol.policy.Plan(snap, cfg.View)
					require.NoError(t, perr)
					sent := len(plan.Resident())
					if len(plan.Deferred()) > 0 {
						sent += 2
					}
					if p == OpenAIChat && sent > wire.MaxChatTools {
						// The API would refuse every request: so does NewSession.
						require.ErrorIs(t, err, ErrTooManyTools)
						assert.Contains(t, err.Error(), fmt.Sprintf("tools[] would hold %d tools", sent))
						return
					}
					require.NoError(t, err)
					call := registry.ToolSearchName
					if s.current().Index() == "" {
						call = snap.Tools()[0].Name
					}
					for _, turn := range conversation(call) {
						body, err := s.BuildRequest(turn)
						require.NoError(t, err)
						assertConforms(t, p, body)
					}
				})
			}
		}
	}
}

// TestQuickstartIndexOutOfDescription is the quickstart's default: 249
// deferred tools, gpt-4o. On OpenAI the 9,687-character name index used to
// ride in tool_search's description (the API refuses over 1,024); it now
// rides in the system message (Chat) or instructions (Responses), once,
// in the frozen prefix, and the description says where. Anthropic keeps
// it in the description.
func TestQuickstartIndexOutOfDescription(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, quickstartCatalogs...)
	require.Equal(t, 249, len(reg.Snapshot().Tools()))
	policy := &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("quickstart", "Defer(mcp__*)")}}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			cfg := testConfig(reg.Snapshot(), p, policy, nil)
			cfg.Model = "gpt-4o"
			s, err := NewSession(cfg)
			require.NoError(t, err)
			require.Len(t, s.current().Plan().Deferred(), 249)
			index := s.current().Index()
			require.Greater(t, utf8.RuneCountInString(index), maxDescription)
			var desc string
			for _, ft := range s.current().Tools() {
				if ft.Name == registry.ToolSearchName {
					desc = ft.Description
				}
			}
			var bodies [][]byte
			for _, turn := range conversation(registry.ToolSearchName) {
				body, err := s.BuildRequest(turn)
				require.NoError(t, err)
				assertConforms(t, p, body)
				bodies = append(bodies, body)
			}
			assertStablePrefix(t, bodies...)
			prefix := string(s.Prefix())
			assert.Equal(t, 1, strings.Count(prefix, jsonBody(index)), "the index is in the prefix exactly once")
			if !capsDescriptions(p) { // Anthropic, Gemini
				assert.Contains(t, desc, index)
				return
			}
			assert.NotContains(t, desc, "<available_deferred_tools>\n")
			assert.Contains(t, desc, "in the system instructions")
			assert.LessOrEqual(t, utf8.RuneCountInString(desc), maxDescription)
			holder := `"instructions":`
			if p == OpenAIChat {
				holder = `{"role":"system","content":`
			}
			i := strings.Index(prefix, holder)
			require.GreaterOrEqual(t, i, 0)
			assert.Contains(t, prefix[i:], jsonBody(index))
		})
	}
}

// jsonBody is s as it appears inside a JSON string.
func jsonBody(s string) string {
	b := jsonx.AppendString(nil, s)
	return string(b[1 : len(b)-1])
}

// A resident description over the cap is cut at a sentence, with a note
// naming tool_search; tool_search then returns the full text.
func TestLongResidentDescription(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, "catalogs/sequential-thinking.tools.json", githubFile)
	const name = "mcp__sequential-thinking__sequentialthinking"
	st, ok := reg.Snapshot().Tool(name)
	require.True(t, ok)
	require.Greater(t, utf8.RuneCountInString(st.Description), 2000)
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s, err := NewSession(testConfig(reg.Snapshot(), p, githubPolicy(), nil))
			require.NoError(t, err)
			var sent string
			for _, ft := range s.current().Tools() {
				if ft.Name == name {
					sent = ft.Description
				}
			}
			if !capsDescriptions(p) {
				assert.Equal(t, st.Description, sent, "%s has no description cap", p)
				return
			}
			assert.LessOrEqual(t, utf8.RuneCountInString(sent), maxDescription)
			note := shortenedNote(name, true)
			require.True(t, strings.HasSuffix(sent, note), sent)
			kept := strings.TrimSuffix(sent, note)
			assert.True(t, strings.HasPrefix(st.Description, kept), "the kept part is the description's start")
			rest := st.Description[len(kept):]
			assert.True(t, strings.HasSuffix(kept, ".") || strings.HasPrefix(rest, "\n\n"),
				"cut at a sentence or paragraph end: %q|%q", kept[max(0, len(kept)-40):], rest[:min(len(rest), 20)])

			res := s.Call(context.Background(), registry.ToolSearchName, json.RawMessage(`{"tool_names":["`+name+`"]}`))
			require.False(t, res.IsError, res.Text)
			last := strings.TrimSpace(st.Description)
			last = last[len(last)-80:]
			assert.Contains(t, res.Text, last, "tool_search returns the full description")
		})
	}
}

func TestShortenDescription(t *testing.T) {
	note := " [note]"
	long := strings.Repeat("One sentence here. ", 80)
	got := shortenDescription(long, note, 100)
	assert.LessOrEqual(t, utf8.RuneCountInString(got), 100)
	assert.True(t, strings.HasSuffix(got, "here."+note), got)
	assert.Equal(t, got, shortenDescription(long, note, 100), "a pure function")

	words := strings.Repeat("word ", 100)
	got = shortenDescription(words, note, 60)
	assert.LessOrEqual(t, utf8.RuneCountInString(got), 60)
	assert.True(t, strings.HasSuffix(got, "word…"+note), got)

	runes := strings.Repeat("語", 300)
	got = shortenDescription(runes, note, 50)
	assert.True(t, utf8.ValidString(got))
	assert.Equal(t, 50, utf8.RuneCountInString(got))
}

// Anthropic refuses a request without max_tokens: NewSession says so,
// naming Config.Extra.
func TestAnthropicNeedsMaxTokens(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	cfg := testConfig(reg.Snapshot(), Anthropic, nil, nil)
	delete(cfg.Extra, "max_tokens")
	_, err := NewSession(cfg)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `Config.Extra["max_tokens"]`)
	for _, p := range []Provider{OpenAIChat, OpenAIResponses} {
		cfg := testConfig(reg.Snapshot(), p, nil, nil)
		cfg.Extra = nil
		_, err := NewSession(cfg)
		assert.NoError(t, err, "%s has a default", p)
	}
}

// The Responses API's hosted tool_search is documented for gpt-5.4 and
// later only.
func TestNativeResponsesModel(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	cfg := testConfig(reg.Snapshot(), OpenAIResponses, allDeferredPolicy(), nil)
	cfg.ToolSearch = Native
	cfg.Model = "gpt-4o"
	_, err := NewSession(cfg)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "gpt-5.4")
	cfg.Model = "gpt-5.5"
	_, err = NewSession(cfg)
	require.NoError(t, err)
	cfg.ToolSearch, cfg.Model = Portable, "gpt-4o"
	_, err = NewSession(cfg)
	require.NoError(t, err, "the portable tool_search works with any model")
}

// An MCP tool that fails with no text (an empty result, is_error) is sent
// with the placeholder: Anthropic refuses an empty is_error tool_result,
// and history is append-only, so every later request would repeat it.
func TestEmptyFailedResult(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Import(&registry.Catalog{Server: "srv", Tools: []registry.Tool{{Name: "fails",
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{IsError: true}, nil
		}}}}))
	d, err := execute.New(nil)
	require.NoError(t, err)
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			cfg := testConfig(reg.Snapshot(), p, nil, nil)
			cfg.Dispatcher = d
			s, err := NewSession(cfg)
			require.NoError(t, err)
			_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("go")}})
			require.NoError(t, err)
			res := s.Call(context.Background(), "mcp__srv__fails", nil)
			require.True(t, res.IsError)
			for _, text := range []string{res.Text, "", " \n\t"} {
				body, err := s.BuildRequest(Turn{Messages: []Message{
					call("c-"+text, "mcp__srv__fails", `{}`),
					{Role: RoleTool, CallID: "c-" + text, Text: text, IsError: true},
					userMsg("and?"),
				}})
				require.NoError(t, err)
				assertConforms(t, p, body)
				if blank(text) {
					assert.Contains(t, string(body), emptyErrorResult)
				}
			}
		})
	}
}

// Whitespace-only assistant text: left out next to tool calls, the
// placeholder when it is all the message has. Anthropic refuses
// whitespace-only text blocks.
func TestWhitespaceAssistantText(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile)
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s, err := NewSession(testConfig(reg.Snapshot(), p, nil, nil))
			require.NoError(t, err)
			body, err := s.BuildRequest(Turn{Messages: []Message{
				userMsg("hi"),
				{Role: RoleAssistant, Text: " \n"},
				userMsg("and the file?"),
				{Role: RoleAssistant, Text: "\t", ToolCalls: []ToolCall{{ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"path":"a"}`)}}},
				result("c1", "contents"),
			}})
			require.NoError(t, err)
			assertConforms(t, p, body)
			assert.Equal(t, 1, strings.Count(string(body), emptyText))
			assert.NotContains(t, string(body), `" \n"`)
			assert.NotContains(t, string(body), `"\t"`)
			assert.Equal(t, " \n", s.Messages()[1].Text, "the neutral history keeps what was given")
		})
	}
	s, err := NewSession(testConfig(reg.Snapshot(), Anthropic, nil, nil))
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleUser, Blocks: []string{" \n "}}}})
	assert.ErrorIs(t, err, ErrInvalidMessage, "a whitespace-only host block is refused")
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("x")}, Inject: []string{"\n"}})
	assert.ErrorIs(t, err, ErrInvalidMessage)
	cfg := testConfig(reg.Snapshot(), Anthropic, nil, nil)
	cfg.System = "  "
	_, err = NewSession(cfg)
	assert.ErrorIs(t, err, ErrConfig)
}

// A conversation that ends with calls without results is refused before
// any bytes are built; nothing joins the history.
func TestUnansweredCalls(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile)
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s, err := NewSession(testConfig(reg.Snapshot(), p, nil, nil))
			require.NoError(t, err)
			_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("read a")}})
			require.NoError(t, err)
			twoCalls := Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"path":"a"}`)},
				{ID: "c2", Name: "Read", Arguments: json.RawMessage(`{"path":"b"}`)},
			}}
			_, err = s.BuildRequest(Turn{Messages: []Message{twoCalls}})
			require.ErrorIs(t, err, ErrSequence)
			assert.Contains(t, err.Error(), `"c1"`)
			_, err = s.BuildRequest(Turn{Messages: []Message{twoCalls, result("c2", "b")}})
			require.ErrorIs(t, err, ErrSequence)
			assert.Contains(t, err.Error(), `"c1"`)
			assert.Len(t, s.Messages(), 1, "a refused turn adds nothing")
			body, err := s.BuildRequest(Turn{Messages: []Message{twoCalls, result("c2", "b"), result("c1", "a")}})
			require.NoError(t, err)
			assertConforms(t, p, body)
		})
	}
}

// MCP tools whose prefixed name breaks the rule — 70 characters, a dot —
// are imported under aliases; the server still imports, the model calls
// the alias, and the handler (bound to the server's own name) runs.
func TestAliasedToolsCallable(t *testing.T) {
	long := strings.Repeat("t", 70-len("mcp__srv__"))
	ran := map[string]int{}
	handler := func(orig string) registry.Handler {
		return func(context.Context, json.RawMessage) (registry.Result, error) {
			ran[orig]++
			return registry.Result{Text: "ran " + orig}, nil
		}
	}
	reg := registry.New(nil)
	require.NoError(t, reg.Import(&registry.Catalog{Server: "srv", Tools: []registry.Tool{
		{Name: long, Handler: handler(long)},
		{Name: "files.read", Handler: handler("files.read")},
		{Name: "plain", Handler: handler("plain")},
	}}))
	require.Equal(t, 3, len(reg.Snapshot().Tools()), "one bad name no longer fails the server")
	d, err := execute.New(nil)
	require.NoError(t, err)
	for _, p := range providers {
		for _, pol := range []*deferral.Policy{nil, allDeferredPolicy()} {
			cfg := testConfig(reg.Snapshot(), p, pol, nil)
			cfg.Dispatcher = d
			s, err := NewSession(cfg)
			require.NoError(t, err)
			body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("go")}})
			require.NoError(t, err)
			assertConforms(t, p, body)
			for _, orig := range []string{long, "files.read"} {
				alias := toolname.MCPName("srv", orig)
				require.LessOrEqual(t, len(alias), toolname.MaxLen)
				require.NotContains(t, string(body), `"`+toolname.MCPPrefix+"srv__"+orig+`"`, "the raw name never reaches the model")
				args := json.RawMessage(`{}`)
				name := alias
				if pol != nil {
					res := s.Call(context.Background(), registry.ToolSearchName, json.RawMessage(`{"tool_names":["`+alias+`"]}`))
					require.False(t, res.IsError, res.Text)
					name, args = registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+alias+`","params":{}}`)
				}
				before := ran[orig]
				res := s.Call(context.Background(), name, args)
				require.False(t, res.IsError, res.Text)
				assert.Equal(t, before+1, ran[orig], "%s via %s", orig, name)
			}
		}
	}
}

// The rule book is the same table docs/providers.md shows.
func TestRulesDocumented(t *testing.T) {
	for _, p := range providers {
		rs := wire.Rules(string(p))
		require.NotEmpty(t, rs)
		for _, r := range rs {
			assert.Equal(t, string(p), r.Provider)
		}
	}
	assert.True(t, errors.Is(checkProviderRules(&Config{Provider: Anthropic}), ErrConfig))
}

// Config.Strict: a strict-compatible tool is sent with "strict": true on
// the OpenAI APIs; every other one, the entry tools included, stays
// non-strict ("strict": false on Responses, absent on Chat).
func TestStrictOnRequest(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(
		registry.Tool{Name: "Closed", RawSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`)},
		registry.Tool{Name: "Open", RawSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
		registry.Tool{Name: "Later", DeferLoading: registry.DeferTrue},
	))
	for _, p := range providers {
		for _, strict := range []bool{false, true} {
			cfg := testConfig(reg.Snapshot(), p, nil, nil)
			cfg.Strict = strict
			s, err := NewSession(cfg)
			require.NoError(t, err)
			body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			assertConforms(t, p, body)
			var req struct {
				Tools []map[string]json.RawMessage
			}
			require.NoError(t, json.Unmarshal(body, &req))
			if p == Gemini {
				// One tools[] entry holds the function declarations.
				require.Len(t, req.Tools, 1)
				var decls []map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(req.Tools[0]["functionDeclarations"], &decls))
				req.Tools = decls
			}
			got := map[string]string{}
			for _, tl := range req.Tools {
				fn := tl
				if f, ok := tl["function"]; ok {
					require.NoError(t, json.Unmarshal(f, &fn))
				}
				var name string
				require.NoError(t, json.Unmarshal(fn["name"], &name))
				got[name] = string(fn["strict"])
			}
			want := map[string]string{"Closed": "false", "Open": "false", "tool_search": "false", "defer_execute": "false"}
			switch {
			case p == Anthropic || p == Gemini:
				want = map[string]string{"Closed": "", "Open": "", "tool_search": "", "defer_execute": ""}
			case p == OpenAIChat && strict:
				want = map[string]string{"Closed": "true", "Open": "", "tool_search": "", "defer_execute": ""}
			case p == OpenAIChat:
				want = map[string]string{"Closed": "", "Open": "", "tool_search": "", "defer_execute": ""}
			case strict:
				want["Closed"] = "true"
			}
			assert.Equal(t, want, got, "%s strict=%v", p, strict)
		}
	}
}

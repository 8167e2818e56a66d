package sdkcheck

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

var providers = []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini}

// extra are each provider's own names for the usual top-level fields.
func extra(p request.Provider) map[string]json.RawMessage {
	m := map[string]json.RawMessage{"temperature": json.RawMessage(`0`), "stream": json.RawMessage(`true`)}
	switch p {
	case request.OpenAIChat:
		m["max_completion_tokens"] = json.RawMessage(`4096`)
		m["parallel_tool_calls"] = json.RawMessage(`true`)
	case request.OpenAIResponses:
		m["max_output_tokens"] = json.RawMessage(`4096`)
		m["store"] = json.RawMessage(`false`)
	case request.Anthropic:
		m["max_tokens"] = json.RawMessage(`4096`)
	case request.Gemini:
		// Gemini's generation settings live in generationConfig; it
		// streams by URL (streamGenerateContent), not by a body member.
		m = map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"temperature":0,"maxOutputTokens":4096}`)}
	}
	return m
}

// catalogSnapshot imports the github server and the harness's built-in
// tools (without its own mcp__ tools, which would collide).
func catalogSnapshot(t testing.TB, drop ...string) *registry.Snapshot {
	t.Helper()
	reg := registry.New(nil)
	for _, f := range []string{"catalogs/github.tools.json", "fixtures/harness-catalog.json"} {
		c, err := registry.LoadCatalog(filepath.Join(root, "testdata", f))
		require.NoError(t, err)
		var keep []registry.Tool
		for _, tl := range c.Tools {
			if slices.Contains(drop, tl.Name) {
				continue
			}
			if c.Server != "" || !strings.HasPrefix(tl.Name, toolname.MCPPrefix) {
				keep = append(keep, tl)
			}
		}
		c.Tools = keep
		require.NoError(t, reg.Import(c))
	}
	return reg.Snapshot()
}

func newSession(t testing.TB, p request.Provider, snap *registry.Snapshot) *request.Session {
	t.Helper()
	s, err := request.NewSession(request.Config{
		ID:       "sdkcheck",
		Snapshot: snap,
		Policy: &deferral.Policy{Layers: []deferral.Layer{
			deferral.MustLayer("project", "Defer(mcp__github__*)", "NoDefer(mcp__github__get_*)"),
		}},
		View:        deferral.View{Tier: registry.TierFull},
		SessionVars: map[string]string{"cwd": "/home/dev/repo", "os": "linux", "date": "2025-06-01"},
		Provider:    p,
		Model:       "test-model",
		System:      "You are a coding agent. Use tools when they help.",
		SystemItems: []string{`<skill name="review">Review diffs carefully.</skill>`},
		Extra:       extra(p),
	})
	require.NoError(t, err)
	return s
}

// turns is a 100-turn conversation with every message shape: user text
// (with host blocks now and then), assistant text, single and parallel tool
// calls (tool_search, defer_execute, direct, no arguments), results and
// error results, turns of tool results only, and odd text.
func turns(n int) []request.Turn {
	var out []request.Turn
	for i := range n {
		id := func(k int) string { return fmt.Sprintf("call_%d_%d", i, k) }
		var tr request.Turn
		switch i % 5 {
		case 0:
			tr.Messages = []request.Message{{Role: request.RoleUser, Text: fmt.Sprintf("Task %d: find open issues about <flaky> tests & fix them \u2028 «ünïcode» 🚀", i)}}
			tr.Inject = []string{"<system-reminder>The working tree is clean.</system-reminder>"}
		case 1:
			tr.Messages = []request.Message{
				{Role: request.RoleAssistant, Text: "Searching for the tools first.", ToolCalls: []request.ToolCall{
					{ID: id(0), Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"queries":["list issues"]}`)}}},
				{Role: request.RoleTool, CallID: id(0), Text: "Loaded: mcp__github__list_issues"},
			}
		case 2:
			tr.Messages = []request.Message{
				{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{
					{ID: id(0), Name: registry.DeferExecuteName, Arguments: json.RawMessage(`{"tool_name":"mcp__github__list_issues","params":{"owner":"o","repo":"r","labels":["flaky"]}}`)},
					{ID: id(1), Name: "Read", Arguments: nil},
					{ID: id(2), Name: "mcp__github__get_me", Arguments: json.RawMessage(`{}`)},
				}},
				{Role: request.RoleTool, CallID: id(0), Text: `[{"number":1,"title":"flaky test"}]`},
				{Role: request.RoleTool, CallID: id(1), Text: "no such file", IsError: true},
				{Role: request.RoleTool, CallID: id(2), Text: `{"login":"octocat"}`},
			}
		case 3:
			tr.Messages = []request.Message{
				{Role: request.RoleAssistant, Text: "Reading the test file.", ToolCalls: []request.ToolCall{
					{ID: id(0), Name: "Read", Arguments: json.RawMessage(`{"file_path":"/src/a_test.go"}`)}}},
				{Role: request.RoleTool, CallID: id(0), Text: ""},
				{Role: request.RoleUser, Text: "Also check the README."},
			}
			tr.Inject = []string{"<system-reminder>2 files changed.</system-reminder>", "<context>branch: main</context>"}
		case 4:
			tr.Messages = []request.Message{{Role: request.RoleAssistant, Text: "Done: the test waited on a timer."}}
		}
		out = append(out, tr)
	}
	return out
}

// Every body of a 100-turn session, for every provider, is one the
// official SDK decodes and re-encodes without losing or changing a field.
// Outside a long run the judge reads a sample of the bodies (see judged);
// every body is still built.
func TestSessionBodiesDecodeInTheSDKs(t *testing.T) {
	snap := catalogSnapshot(t)
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s := newSession(t, p, snap)
			for i, tr := range turns(100) {
				if i == 40 {
					require.NoError(t, s.RegisterSelfBuilt(registry.Tool{
						Name:        "summarize_ci_log",
						Description: "Summarize a CI log: failing steps first.",
						RawSchema:   json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`),
					}))
				}
				body, err := s.BuildRequest(tr)
				require.NoError(t, err, "turn %d", i)
				requesttest.CheckProviderRules(t, p, body)
				if !judged(i, 100, 40) {
					continue
				}
				problems, err := Check(p, body)
				require.NoError(t, err, "turn %d", i)
				for _, pr := range problems {
					t.Errorf("turn %d: %s", i, pr)
				}
				if t.Failed() {
					return
				}
			}
		})
	}
}

// The judge fails when it should: a field the SDK does not know, a union
// variant it cannot decode, and a missing required field are all reported.
func TestCheckCatchesWhatTheSDKDoesNotKnow(t *testing.T) {
	tests := []struct {
		name     string
		provider request.Provider
		body     string
		want     []string
	}{
		{"unknown top-level field", request.OpenAIChat,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"cache_key":"k"}`,
			[]string{"/cache_key: dropped"}},
		{"unknown tool field", request.OpenAIChat,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object"}},"defer":true}]}`,
			[]string{"/tools/0/defer: dropped"}},
		{"input item without type", request.OpenAIResponses,
			`{"model":"m","input":[{"role":"user","content":"x"}]}`,
			[]string{"/input: dropped"}},
		{"unknown block field", request.Anthropic,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"x","priority":1}]}]}`,
			[]string{"/messages/0/content/0/priority: dropped"}},
		{"missing required max_tokens", request.Anthropic,
			`{"model":"m","messages":[{"role":"user","content":"x"}]}`,
			[]string{"/max_tokens: added"}},
		{"wrong type", request.Anthropic,
			`{"model":"m","max_tokens":"5","messages":[{"role":"user","content":"x"}]}`,
			[]string{"/max_tokens: changed"}},
		{"unknown part field (Gemini)", request.Gemini,
			`{"contents":[{"role":"user","parts":[{"text":"x","cache":true}]}]}`,
			[]string{"/contents/0/parts/0/cache: dropped"}},
		{"model in the body (Gemini takes it in the URL)", request.Gemini,
			`{"model":"gemini-2.5-flash","contents":[{"role":"user","parts":[{"text":"x"}]}]}`,
			[]string{"/model: dropped"}},
		{"snake_case declaration field (Gemini)", request.Gemini,
			`{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"a","parameters_json_schema":{"type":"object"}}]}]}`,
			[]string{"/tools/0/functionDeclarations/0/parameters_json_schema: dropped"}},
		{"empty args elsewhere than a call (Gemini)", request.Gemini,
			`{"contents":[{"role":"user","parts":[{"text":"x"}]}],"labels":{}}`,
			[]string{"/labels: dropped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, err := Check(tt.provider, []byte(tt.body))
			require.NoError(t, err)
			var got []string
			for _, pr := range problems {
				got = append(got, pr.String())
			}
			require.Len(t, got, len(tt.want), "%v", got)
			for i, w := range tt.want {
				assert.Contains(t, got[i], w)
			}
		})
	}
}

func TestCheckAcceptsEquivalentForms(t *testing.T) {
	tests := []struct {
		name     string
		provider request.Provider
		body     string
	}{
		{"null content beside tool calls", request.OpenAIChat,
			`{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"a","arguments":"{}"}}]}]}`},
		{"string tool_result content", request.Anthropic,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":"ok"}]}]}`},
		{"a call without arguments (Gemini): {} and absent args alike", request.Gemini,
			`{"contents":[{"role":"model","parts":[{"functionCall":{"id":"c","name":"a","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"c","name":"a","response":{"output":"ok"}}}]}]}`},
		{"stream", request.Anthropic,
			`{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"x"}]}`},
		{"native tool search (Anthropic)", request.Anthropic,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"tools":[{"name":"a","input_schema":{"type":"object"},"defer_loading":true},{"name":"b","input_schema":{"type":"object"}},{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}]}`},
		{"native tool search (Responses)", request.OpenAIResponses,
			`{"model":"m","input":"x","tools":[{"type":"function","name":"a","parameters":{"type":"object"},"strict":false,"defer_loading":true},{"type":"tool_search"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, err := Check(tt.provider, []byte(tt.body))
			require.NoError(t, err)
			assert.Empty(t, problems)
		})
	}
}

func TestCheckErrors(t *testing.T) {
	_, err := Check("vertex", []byte(`{}`))
	require.ErrorIs(t, err, request.ErrUnknownProvider)
	_, err = Check(request.Anthropic, []byte(`{"model":`))
	require.Error(t, err)
}

// judged reports whether body i of n is handed to the SDK judge. A long run
// (TOOLSHELF_LONG=1, see internal/testkit/longtest) judges every body. Otherwise:
// the first ten (two rounds of every message shape, each ending shape
// once), five from turn at (a change mid-session), every tenth, and the
// last, which holds every message of the conversation. Judging re-decodes
// the whole body, so it grows with the conversation: the sample costs about
// a fifth of judging all.
func judged(i, n, at int) bool {
	return longtest.On() || i < 10 || i%10 == 0 || (i >= at && i < at+5) || i == n-1
}

// Bodies that ask for the provider's cache diagnosis (issue 45) — the
// first turn's and the later ones, which name the previous reply — pass
// the provider rule book and round-trip through the official SDKs:
// anthropic-sdk-go's MessageNewParams.Diagnostics (previous_message_id,
// null included) and openai-go's ResponseNewParams.PromptCacheOptions
// (comparison_response_id).
func TestDiagnosticsBodiesDecodeInTheSDKs(t *testing.T) {
	snap := catalogSnapshot(t)
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIResponses} {
		t.Run(string(p), func(t *testing.T) {
			s, err := request.NewSession(request.Config{
				ID: "sdkcheck-diag", Snapshot: snap, Provider: p, Model: "test-model",
				System: "You are a coding agent.", Extra: extra(p), Diagnostics: true,
			})
			require.NoError(t, err)
			var named []string
			for i, tr := range turns(10) {
				for k := range tr.Messages {
					if tr.Messages[k].Role == request.RoleAssistant {
						tr.Messages[k].ReplyID = fmt.Sprintf("reply_%d", i)
					}
				}
				body, err := s.BuildRequest(tr)
				require.NoError(t, err, "turn %d", i)
				requesttest.CheckProviderRules(t, p, body)
				problems, err := Check(p, body)
				require.NoError(t, err, "turn %d", i)
				for _, pr := range problems {
					t.Errorf("turn %d: %s", i, pr)
				}
				var b struct {
					Diagnostics *struct {
						Prev *string `json:"previous_message_id"`
					} `json:"diagnostics"`
					Options *struct {
						ID string `json:"comparison_response_id"`
					} `json:"prompt_cache_options"`
				}
				require.NoError(t, json.Unmarshal(body, &b))
				switch {
				case b.Diagnostics != nil && b.Diagnostics.Prev != nil:
					named = append(named, *b.Diagnostics.Prev)
				case b.Options != nil:
					named = append(named, b.Options.ID)
				}
			}
			assert.Contains(t, named, "reply_9", "the last turn names its reply")
		})
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// libraryBody builds the body the library itself returns for the harness
// fixture, to hold the command to "byte for byte what BuildRequest returns".
func libraryBody(t *testing.T, p request.Provider, layer *deferral.Layer, msgs []request.Message) []byte {
	t.Helper()
	c, err := registry.LoadCatalog(harness)
	require.NoError(t, err)
	reg := registry.New(nil)
	require.NoError(t, reg.Import(c))
	policy := &deferral.Policy{}
	if layer != nil {
		policy.Layers = []deferral.Layer{*layer}
	}
	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(), Policy: policy, View: deferral.View{Tier: registry.TierFull},
		Provider: p, Model: "m-1", System: "Be brief.", Extra: outputBound(p, defaultMaxTokens, false),
	})
	require.NoError(t, err)
	body, err := s.BuildRequest(request.Turn{Messages: msgs})
	require.NoError(t, err)
	return body
}

const transcriptJSON = `[
  {"role": "user", "text": "Make a video of the release notes."},
  {"role": "assistant", "tool_calls": [{"id": "c1", "name": "tool_search", "arguments": {"tool_names": ["VideoGen"]}}]},
  {"role": "tool", "call_id": "c1", "text": "VideoGen loaded"},
  {"role": "assistant", "tool_calls": [{"id": "c2", "name": "defer_execute", "arguments": {"tool_name": "VideoGen", "params": {}}}]},
  {"role": "tool", "call_id": "c2", "text": "quota exceeded", "is_error": true},
  {"role": "assistant", "text": "The video service is out of quota."},
  {"role": "user", "text": "Try again tomorrow."}
]`

func TestRequestIsTheLibrarysBody(t *testing.T) {
	transcript := writeFile(t, "t.json", transcriptJSON)
	var msgs []request.Message
	require.NoError(t, json.Unmarshal([]byte(transcriptJSON), &msgs))
	rules := writeFile(t, "rules.txt", "# pin the big one\nNoDefer(VideoGen)\n")
	keep := deferral.MustLayer(rules, "NoDefer(VideoGen)")

	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini} {
		t.Run(string(p), func(t *testing.T) {
			base := []string{"request", "--catalog", harness, "--provider", string(p), "--model", "m-1", "--system", "Be brief."}

			code, out, errOut := runCLI(append(base, "--user", "hi")...)
			require.Equal(t, exitOK, code, errOut)
			want := libraryBody(t, p, nil, []request.Message{{Role: request.RoleUser, Text: "hi"}})
			assert.Equal(t, string(want), out, "not byte for byte the library's body")
			assert.False(t, strings.HasSuffix(out, "\n"), "nothing after the body")
			// defer_loading:true tools are deferred: name in the index, schema out.
			prefix := out[:wire.PrefixLen([]byte(out))]
			assert.Contains(t, prefix, "VideoGen")
			assert.NotContains(t, prefix, `"name":"VideoGen"`)

			code, out, errOut = runCLI(append(base, "--transcript", transcript, "--rules", rules)...)
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, string(libraryBody(t, p, &keep, msgs)), out)
			assert.Contains(t, out, `"name":"VideoGen"`, "NoDefer(VideoGen) made it resident")
		})
	}
}

func TestRequestJSON(t *testing.T) {
	code, out, errOut := runCLI("request", "--json", "--catalog", harness, "--provider", "anthropic", "--model", "m-1", "--user", "hi")
	require.Equal(t, exitOK, code, errOut)
	var r requestJSON
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Equal(t, "anthropic", r.Provider)
	assert.Len(t, r.Deferred, 23, "the fixture's 23 defer_loading:true tools")
	assert.Len(t, r.Resident, 35)
	assert.Contains(t, r.Deferred, "VideoGen")
	assert.Equal(t, 1, r.Messages)
	assert.Positive(t, r.PrefixBytes)
	assert.Less(t, r.PrefixBytes, r.Bytes)
	assert.True(t, json.Valid(r.Body))
	_, plain, _ := runCLI("request", "--catalog", harness, "--provider", "anthropic", "--model", "m-1", "--user", "hi")
	assert.Equal(t, len(plain), r.Bytes)
}

func TestRequestBadInput(t *testing.T) {
	notJSON := writeFile(t, "broken.json", `[{"role": "user"`)
	unknownKey := writeFile(t, "key.json", `[{"role": "user", "txt": "hi"}]`)
	orphan := writeFile(t, "orphan.json", `[{"role": "user", "text": "hi"}, {"role": "tool", "call_id": "x", "text": "r"}]`)
	empty := writeFile(t, "empty.json", `[]`)
	shape := writeFile(t, "shape.json", `{"servers": []}`)
	rules := writeFile(t, "rules.txt", "Sometimes(x)\n")
	base := []string{"request", "--catalog", harness, "--provider", "openai-chat", "--model", "m"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no catalog", []string{"request", "--provider", "openai-chat", "--model", "m", "--user", "hi"}, []string{"no catalog"}},
		{"no provider", []string{"request", "--catalog", harness, "--model", "m", "--user", "hi"}, []string{"no provider"}},
		{"unknown provider", []string{"request", "--catalog", harness, "--provider", "vertex", "--model", "m", "--user", "hi"}, []string{`"vertex"`, "openai-chat"}},
		{"no model", []string{"request", "--catalog", harness, "--provider", "anthropic", "--user", "hi"}, []string{"no model"}},
		{"no messages", base, []string{"--user", "--transcript"}},
		{"both", append(base, "--user", "hi", "--transcript", orphan), []string{"not both"}},
		{"catalog shape", []string{"request", "--catalog", shape, "--provider", "anthropic", "--model", "m", "--user", "hi"}, []string{shape, "unknown shape"}},
		{"bad rule", append(base, "--user", "hi", "--rules", rules), []string{rules, "line 1"}},
		{"transcript not JSON", append(base, "--transcript", notJSON), []string{notJSON, "JSON"}},
		{"transcript unknown key", append(base, "--transcript", unknownKey), []string{unknownKey, "txt"}},
		{"transcript bad sequence", append(base, "--transcript", orphan), []string{orphan, `"x"`}},
		{"transcript empty", append(base, "--transcript", empty), []string{empty, "no messages"}},
		{"transcript missing", append(base, "--transcript", "nope.json"), []string{"nope.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out, "nothing written on bad input")
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			for _, w := range tt.want {
				assert.Contains(t, errOut, w)
			}
		})
	}
}

// Every body the command writes for the shared catalogs passes the
// provider's rule book; --check says so with exit 0, and reports a
// violation (here an unanswered call in a transcript that the library
// would refuse, checked on a hand-written body through the same rules)
// with exit 1.
func TestRequestCheck(t *testing.T) {
	rules := writeFile(t, "rules.txt", "Defer(mcp__github__*)\n")
	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini} {
		t.Run(string(p), func(t *testing.T) {
			code, out, errOut := runCLI("request", "--check", "--catalog", "../../testdata/catalogs/github.tools.json",
				"--catalog", "../../testdata/catalogs/sequential-thinking.tools.json", "--rules", rules,
				"--provider", string(p), "--model", "gpt-4o", "--user", "hi")
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, fmt.Sprintf("toolshelf request: OK: the %s body (%d bytes) passes the provider rule book\n", p, len(out)), errOut, "one line, nothing else")
			assert.True(t, requesttest.CheckProviderRules(t, p, []byte(out)))
			if p == request.Anthropic {
				assert.Contains(t, out, `"max_tokens":4096`, "the stated default")
			} else {
				assert.NotContains(t, out, `max_`, "the OpenAI APIs and Gemini have their own default")
				assert.NotContains(t, out, `maxOutputTokens`)
			}
			code, out, errOut = runCLI("request", "--catalog", harness, "--provider", string(p), "--model", "m", "--user", "hi", "--max-tokens", "77")
			require.Equal(t, exitOK, code, errOut)
			if p == request.Gemini {
				assert.Contains(t, out, `{"generationConfig":{"maxOutputTokens":77},`)
			} else {
				assert.Contains(t, out, ":77,")
			}
		})
	}
	code, _, errOut := runCLI("request", "--catalog", harness, "--provider", "anthropic", "--model", "m", "--user", "hi", "--max-tokens", "-1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--max-tokens")

	// A body built elsewhere: no max_tokens, an empty failed result.
	bad := writeFile(t, "bad.json", `{"model":"m","messages":[{"role":"user","content":"hi"},`+
		`{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"a.b","input":{}}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"","is_error":true}]}]}`)
	code, out, errOut := runCLI("request", "--check", "--provider", "anthropic", "--body", bad)
	assert.Equal(t, exitFinding, code)
	assert.Empty(t, out)
	for _, w := range []string{"max-tokens", "tool-name", "error-result-content", "messages[2].content[0].content"} {
		assert.Contains(t, errOut, w)
	}
	chat := writeFile(t, "chat.json", `{"model":"m","messages":[{"role":"user","content":"hi"},`+
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"a.b","arguments":"{}"}}]}]}`)
	code, _, errOut = runCLI("request", "--check", "--provider", "openai-chat", "--body", chat)
	assert.Equal(t, exitFinding, code)
	assert.Contains(t, errOut, "tool-name")
	assert.Contains(t, errOut, "calls-answered")
	code, _, _ = runCLI("request", "--provider", "anthropic", "--body", bad)
	assert.Equal(t, exitUsage, code)
}

// A server with a dotted and a 70-character tool name imports; budget and
// request show the aliases, and budget maps each back to the server's name.
func TestAliasesShown(t *testing.T) {
	long := strings.Repeat("t", 70-len("mcp__srv__"))
	cat := writeFile(t, "srv.json", `{"server":"srv","tools":[{"name":"files.read","inputSchema":{"type":"object"}},{"name":"`+long+`","inputSchema":{"type":"object"}},{"name":"plain","inputSchema":{"type":"object"}}]}`)
	code, out, errOut := runCLI("budget", "--catalog", cat)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `alias +mcp__srv__files_read_[0-9a-f]{8} for the server's tool "files.read"`, out)
	assert.Contains(t, out, `for the server's tool "`+long+`"`)
	assert.NotContains(t, out, `"plain"`)
	code, out, errOut = runCLI("request", "--check", "--catalog", cat, "--provider", "openai-chat", "--model", "m", "--user", "hi")
	require.Equal(t, exitOK, code, errOut)
	// The server's tools are deferred (the catalog policy): the alias is in
	// the index, by its short name under the server's header, whole.
	assert.Regexp(t, `mcp__srv:\\n  files_read_[0-9a-f]{8}\\n`, out)
	assert.Regexp(t, `\\n  t{45}_[0-9a-f]{8}\\n`, out, "the long name's alias, its first 55 bytes and hash")
}

// TestRequestToolSearchCheck: every shared catalog, in each tool search
// mode its provider takes, builds a body that passes the rule book; an
// unknown mode, or one the provider lacks, is a usage error naming it.
func TestRequestToolSearchCheck(t *testing.T) {
	cats, err := filepath.Glob("../../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	require.NotEmpty(t, cats)
	modes := map[request.Provider][]string{
		request.Anthropic:       {"client", "native", "native-regex", "portable"},
		request.OpenAIResponses: {"client", "native"},
	}
	for p, ms := range modes {
		for _, m := range ms {
			for _, cat := range cats {
				t.Run(string(p)+"/"+m+"/"+filepath.Base(cat), func(t *testing.T) {
					code, out, errOut := runCLI("request", "--check", "--tool-search", m, "--catalog", cat,
						"--provider", string(p), "--model", "gpt-5.4", "--user", "hi")
					require.Equal(t, exitOK, code, errOut)
					assert.Equal(t, fmt.Sprintf("toolshelf request: OK: the %s body (%d bytes) passes the provider rule book\n", p, len(out)), errOut)
					assert.True(t, requesttest.CheckProviderRules(t, p, []byte(out)))
					if m == "client" {
						assert.Contains(t, out, `"defer_loading":true`)
					}
				})
			}
		}
	}
	code, _, errOut := runCLI("request", "--tool-search", "client", "--catalog", harness, "--provider", "openai-chat", "--model", "m", "--user", "hi")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `"client"`)
	code, _, errOut = runCLI("request", "--tool-search", "bogus", "--catalog", harness, "--provider", "anthropic", "--model", "m", "--user", "hi")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `"bogus"`)
}

package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
)

// geminiBody is a generateContent response of a thinking model that calls
// two functions: a thought summary, the first call signed and without an
// id (the Gemini API fills functionCall.id on some models only), the
// second with one; usage with cached, thought and tool-use tokens.
const geminiBody = `{
  "candidates": [{
    "content": {"role": "model", "parts": [
      {"text": "The user wants the open issues.", "thought": true},
      {"text": "Let me look."},
      {"functionCall": {"name": "mcp__github__list_issues", "args": {"repo": "webapp", "state": "open"}}, "thoughtSignature": "c2lnLTE="},
      {"functionCall": {"id": "fc-2", "name": "Read", "args": {}}}
    ]},
    "finishReason": "STOP",
    "index": 0
  }],
  "usageMetadata": {"promptTokenCount": 5000, "candidatesTokenCount": 40, "thoughtsTokenCount": 60,
    "toolUsePromptTokenCount": 7, "cachedContentTokenCount": 4096, "totalTokenCount": 5107},
  "modelVersion": "gemini-2.5-flash",
  "responseId": "resp-1"
}`

func TestGeminiDecodeReply(t *testing.T) {
	r, err := DecodeReply(Gemini, []byte(geminiBody))
	require.NoError(t, err)
	assert.Equal(t, "STOP", r.StopReason)
	assert.Equal(t, Usage{InputTokens: 5007, OutputTokens: 100, CacheReadTokens: 4096}, r.Usage,
		"prompt + tool-use prompt in, candidates + thoughts out, cachedContentTokenCount read")
	assert.Equal(t, "Let me look.", r.Message.Text)
	require.Len(t, r.Message.ToolCalls, 2)
	first := r.Message.ToolCalls[0]
	assert.Regexp(t, `^gemini-[0-9a-f]{24}$`, first.ID, "an id is made for a call without one")
	assert.Equal(t, "mcp__github__list_issues", first.Name)
	assert.JSONEq(t, `{"repo":"webapp","state":"open"}`, string(first.Arguments))
	assert.Equal(t, ToolCall{ID: "fc-2", Name: "Read", Arguments: json.RawMessage(`{}`)}, r.Message.ToolCalls[1])
	require.Len(t, r.Message.Native, 2)
	assert.Equal(t, `{"text":"The user wants the open issues.","thought":true}`, string(r.Message.Native[0]), "the thought part verbatim")
	assert.Equal(t, `{"functionCall":{"id":"`+first.ID+`","name":"mcp__github__list_issues","args":{"repo":"webapp","state":"open"}},"thoughtSignature":"c2lnLTE="}`,
		string(r.Message.Native[1]), "the signed call's carrier, named by the id its call got")

	plain, err := DecodeReply(Gemini, []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"a","thought":false},{"text":"b"}]}}]}`))
	require.NoError(t, err)
	assert.Equal(t, Message{Role: RoleAssistant, Text: "ab"}, plain.Message, "plain text parts leave no native part")

	again, err := DecodeReply(Gemini, []byte(geminiBody))
	require.NoError(t, err)
	assert.Equal(t, first.ID, again.Message.ToolCalls[0].ID, "the made id is a function of the reply")
	other, err := DecodeReply(Gemini, []byte(strings.Replace(geminiBody, `"resp-1"`, `"resp-2"`, 1)))
	require.NoError(t, err)
	assert.NotEqual(t, first.ID, other.Message.ToolCalls[0].ID, "another response, another id")
}

// geminiStream cuts geminiBody's parts into chunks, the text in pieces,
// usage and the finish reason in the last chunk.
func geminiStream(t *testing.T, parts []string, last string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[` + p + `]},"index":0}],"responseId":"resp-1"}` + "\n\n")
	}
	b.WriteString(last)
	return b.String()
}

func TestGeminiStreamDecodesAsWhole(t *testing.T) {
	whole, err := DecodeReply(Gemini, []byte(geminiBody))
	require.NoError(t, err)
	final := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":5000,"candidatesTokenCount":40,"thoughtsTokenCount":60,"toolUsePromptTokenCount":7,"cachedContentTokenCount":4096},"responseId":"resp-1"}` + "\n\n"
	parts := []string{
		`{"text":"The user wants the open issues.","thought":true}`,
		`{"text":"Let me "}`, `{"text":"look."}`,
		`{"functionCall":{"name":"mcp__github__list_issues","args":{"repo":"webapp","state":"open"}},"thoughtSignature":"c2lnLTE="}`,
		`{"functionCall":{"id":"fc-2","name":"Read","args":{}}}`,
	}
	got, err := DecodeStream(Gemini, strings.NewReader(geminiStream(t, parts, final)))
	require.NoError(t, err)
	assert.Equal(t, whole, got)

	_, err = DecodeStream(Gemini, strings.NewReader(geminiStream(t, parts, "")))
	assert.ErrorIs(t, err, ErrReply)
	assert.ErrorContains(t, err, "before its terminal event")
	_, err = DecodeStream(Gemini, strings.NewReader(geminiStream(t, parts, final+final)))
	assert.ErrorContains(t, err, "after the end of the stream")
}

func TestGeminiDecodeErrors(t *testing.T) {
	for _, c := range []struct{ body, mentioned string }{
		{`{"error":{"code":400,"message":"* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.","status":"INVALID_ARGUMENT"}}`, "INVALID_ARGUMENT"},
		{`{"promptFeedback":{"blockReason":"SAFETY"}}`, "blocked"},
		{`{"candidates":[]}`, "no candidates"},
		{`{"candidates":[{"content":{"role":"user","parts":[{"text":"x"}]}}]}`, "want model"},
		{`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"x","args":[1]}}]}}]}`, "arguments"},
		{`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"a","args":{}}}]}}]}`, "no name"},
		{`{"candidates":[{"content":{"role":"model","parts":[7]}}]}`, "part object"},
		{`{"candidates":[{"content":{"role":"model","parts":[]}}],"usageMetadata":{"promptTokenCount":-1}}`, "negative"},
	} {
		_, err := DecodeReply(Gemini, []byte(c.body))
		require.Error(t, err, c.body)
		assert.ErrorIs(t, err, ErrReply)
		assert.ErrorContains(t, err, c.mentioned)
	}
}

// TestGeminiSignaturesGoBack: a decoded reply sent back in the next
// request carries each thought signature on its own part — the call's on
// the call, matched by id — the thought part verbatim, every call once,
// and function responses that name their calls.
func TestGeminiSignaturesGoBack(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	s, err := NewSession(testConfig(reg.Snapshot(), Gemini, githubPolicy(), nil))
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("list the issues")}})
	require.NoError(t, err)
	r, err := DecodeReply(Gemini, []byte(geminiBody))
	require.NoError(t, err)
	c0, c1 := r.Message.ToolCalls[0], r.Message.ToolCalls[1]
	body, err := s.BuildRequest(Turn{Messages: []Message{r.Message,
		{Role: RoleTool, CallID: c0.ID, Text: "[]"}, {Role: RoleTool, CallID: c1.ID, Text: "denied", IsError: true}}})
	require.NoError(t, err)
	checkRules(t, Gemini, body)

	var req struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	require.Len(t, req.Contents, 3)
	model := req.Contents[1]
	require.Equal(t, "model", model.Role)
	var parts []string
	for _, p := range model.Parts {
		parts = append(parts, string(p))
	}
	assert.Equal(t, []string{
		`{"text":"The user wants the open issues.","thought":true}`,
		`{"text":"Let me look."}`,
		`{"functionCall":{"id":"` + c0.ID + `","name":"mcp__github__list_issues","args":{"repo":"webapp","state":"open"}},"thoughtSignature":"c2lnLTE="}`,
		`{"functionCall":{"id":"fc-2","name":"Read","args":{}}}`,
	}, parts)
	user := req.Contents[2]
	require.Len(t, user.Parts, 2)
	assert.Equal(t, `{"functionResponse":{"id":"`+c0.ID+`","name":"mcp__github__list_issues","response":{"output":"[]"}}}`, string(user.Parts[0]))
	assert.Equal(t, `{"functionResponse":{"id":"fc-2","name":"Read","response":{"error":"denied"}}}`, string(user.Parts[1]))
}

// TestGeminiResultNameAfterRestore: a turn cannot end with an open call,
// and a restored session (its history restored as bytes) goes on naming
// each call in its functionResponse.
func TestGeminiResultNameAfterRestore(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	cfg := testConfig(reg.Snapshot(), Gemini, githubPolicy(), nil)
	s, err := NewSession(cfg)
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("read it"),
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "mcp__github__get_me"}}}}})
	require.Error(t, err, "a turn may not end with an open call")
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("read it")}})
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "mcp__github__get_me"}}},
		{Role: RoleTool, CallID: "c1", Text: "me"}}})
	require.NoError(t, err)
	state, err := s.MarshalState()
	require.NoError(t, err)
	restored, err := RestoreSession(cfg, state, nil)
	require.NoError(t, err)
	body, err := restored.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c2", Name: "mcp__github__get_me"}}},
		{Role: RoleTool, CallID: "c2", Text: "me again"}}})
	require.NoError(t, err)
	assert.True(t, bytes.Contains(body, []byte(`{"functionResponse":{"id":"c2","name":"mcp__github__get_me","response":{"output":"me again"}}}`)), string(body))
	checkRules(t, Gemini, body)
}

// TestGeminiRefusals: the modes and names Gemini cannot take are refused
// at NewSession with the fix.
func TestGeminiRefusals(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	for _, mode := range []ToolSearch{Native, NativeRegex, Client} {
		cfg := testConfig(reg.Snapshot(), Gemini, githubPolicy(), nil)
		cfg.ToolSearch = mode
		_, err := NewSession(cfg)
		assert.ErrorIs(t, err, ErrConfig, mode)
		assert.ErrorContains(t, err, "Portable", mode)
	}
	cfg := testConfig(reg.Snapshot(), Gemini, githubPolicy(), nil)
	cfg.Extra = map[string]json.RawMessage{"contents": json.RawMessage(`[]`)}
	_, err := NewSession(cfg)
	assert.ErrorIs(t, err, ErrConfig)
}

// TestFiftyTurnsAppendOnly: a 50-turn scripted conversation with
// tool_search, defer_execute, a self-built tool and a server that arrives
// late, on every provider: every body extends the one before it (each
// provider's moving parts aside), the prefix never moves, and every body
// passes the provider's rule book.
func TestFiftyTurnsAppendOnly(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			reg := liveRegistry(t)
			f := newLiveFixture(t, reg, p, nil)
			prefix := string(f.s.Prefix())
			var prev []byte
			call := func(n int, name string, args string, r registry.Result) []Message {
				id := fmt.Sprintf("call_%d", n)
				return []Message{
					{Role: RoleAssistant, Text: fmt.Sprintf("step %d", n), ToolCalls: []ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}},
					{Role: RoleTool, CallID: id, Text: r.Text, IsError: r.IsError},
				}
			}
			for n := range 50 {
				var msgs []Message
				switch {
				case n == 0:
					msgs = []Message{userMsg("list the directory, then add 2 and 3")}
				case n%5 == 1:
					args := `{"tool_names":["mcp__files__list_dir"]}`
					if n > 24 {
						args = `{"tool_names":["mcp__late__sum"]}`
					}
					msgs = call(n, registry.ToolSearchName, args, f.search(t, args))
				case n%5 == 2:
					args := `{"tool_name":"mcp__files__list_dir","params":{"path":"."}}`
					msgs = call(n, registry.DeferExecuteName, args, f.exec(t, "mcp__files__list_dir", `{"path":"."}`))
				case n == 13:
					require.NoError(t, f.s.RegisterSelfBuilt(registry.Tool{Name: "count_lines", Description: "Counts lines in a file.",
						RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}))
					msgs = []Message{{Role: RoleAssistant, Text: "built count_lines"}, userMsg("use it")}
				case n == 24:
					require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("sum", "Add two numbers and return their sum.", sumSchema)}))
					_, err := f.s.Sync(t.Context(), reg.Snapshot())
					require.NoError(t, err)
					msgs = []Message{{Role: RoleAssistant, Text: "waiting"}, userMsg("the server is up")}
				case n%5 == 3 && n > 24:
					args := `{"tool_name":"mcp__late__sum","params":{"a":2,"b":3}}`
					r := f.exec(t, "mcp__late__sum", `{"a":2,"b":3}`)
					require.False(t, r.IsError, r.Text)
					msgs = call(n, registry.DeferExecuteName, args, r)
				default:
					msgs = []Message{{Role: RoleAssistant, Text: fmt.Sprintf("reply %d", n)}, userMsg(fmt.Sprintf("turn %d", n))}
				}
				body, err := f.s.BuildRequest(Turn{Messages: msgs})
				require.NoError(t, err, "turn %d", n)
				require.Equal(t, prefix, string(body[:len(prefix)]), "turn %d: the prefix moved", n)
				checkRules(t, p, body)
				if prev != nil {
					require.Empty(t, wire.AppendOnly(string(p), prev, body), "turn %d", n)
				}
				prev = body
			}
			assert.Contains(t, string(prev), `sum ran with {\"a\":2,\"b\":3}`, "the late tool ran through defer_execute")
			assert.Contains(t, string(prev), "count_lines", "the self-built tool was announced")
		})
	}
}

// TestGeminiCallsBounded: a reply's calls are bounded whatever their
// shape — plain functionCall parts (no id, no signature) count as much as
// signed ones — whole and streamed.
func TestGeminiCallsBounded(t *testing.T) {
	parts := make([]string, maxStreamParts+1)
	for i := range parts {
		parts[i] = `{"functionCall":{"name":"Read","args":{}}}`
	}
	body := `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(parts, ",") + `]},"finishReason":"STOP","index":0}]}`
	_, err := DecodeReply(Gemini, []byte(body))
	assert.ErrorIs(t, err, ErrReply)
	assert.ErrorContains(t, err, "more than 4096")

	var b strings.Builder
	for _, p := range parts {
		b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[` + p + `]},"index":0}]}` + "\n\n")
	}
	b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}]}` + "\n\n")
	_, err = DecodeStream(Gemini, strings.NewReader(b.String()))
	assert.ErrorIs(t, err, ErrReply)
	assert.ErrorContains(t, err, "more than 4096")

	ok, err := DecodeReply(Gemini, []byte(strings.Replace(body, `[{"functionCall":{"name":"Read","args":{}}},`, `[`, 1)))
	require.NoError(t, err, "the bound itself is allowed")
	assert.Len(t, ok.Message.ToolCalls, maxStreamParts)
}

// TestGeminiCandidateByIndex: the session continues the candidate whose
// index is 0, wherever the list puts it; a reply without one, or with two,
// is an error rather than an empty reply.
func TestGeminiCandidateByIndex(t *testing.T) {
	zero := `{"content":{"role":"model","parts":[{"functionCall":{"id":"a","name":"Read","args":{}}}]},"finishReason":"STOP","index":0}`
	one := `{"content":{"role":"model","parts":[{"text":"other"}]},"finishReason":"STOP","index":1}`
	r, err := DecodeReply(Gemini, []byte(`{"candidates":[`+one+`,`+zero+`]}`))
	require.NoError(t, err)
	require.Len(t, r.Message.ToolCalls, 1, "candidate 0's call, listed second")
	assert.Equal(t, "a", r.Message.ToolCalls[0].ID)
	assert.Empty(t, r.Message.Text, "candidate 1's text is not the session's")

	_, err = DecodeReply(Gemini, []byte(`{"candidates":[`+one+`]}`))
	assert.ErrorIs(t, err, ErrReply)
	assert.ErrorContains(t, err, "no candidate with index 0")
	_, err = DecodeReply(Gemini, []byte(`{"candidates":[`+zero+`,`+zero+`]}`))
	assert.ErrorIs(t, err, ErrReply)
	assert.ErrorContains(t, err, "both have index 0")

	stream := "data: {\"candidates\":[" + one + "]}\n\n" + "data: {\"candidates\":[" + one + "," + zero + "]}\n\n"
	got, err := DecodeStream(Gemini, strings.NewReader(stream))
	require.NoError(t, err)
	assert.Equal(t, r.Message, got.Message, "streamed: candidate 0 found by index too")
}

package replytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/request"
)

var providers = []request.Provider{request.Anthropic, request.OpenAIChat, request.OpenAIResponses, request.Gemini}

// messages are assistant messages of every shape the decoders keep apart.
func messages(p request.Provider) []request.Message {
	call := func(id, name, args string) request.ToolCall {
		return request.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
	}
	out := []request.Message{
		{Role: request.RoleAssistant, Text: "Done: 3 files, 17 TODOs — “quoted”, 日本語, and a long sentence that spans several deltas."},
		{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{call("c1", "Read", `{"path":"a.go"}`)}},
		{Role: request.RoleAssistant, Text: "Two at once.", ToolCalls: []request.ToolCall{
			call("c2", "Read", `{"path":"a.go","lines":[1,2,3],"opts":{"x":null,"y":"ü"}}`), call("c3", "Grep", `{}`)}},
		{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{call("c4", "Now", ``)}},
	}
	switch p {
	case request.Anthropic:
		out = append(out, request.Message{Role: request.RoleAssistant, Text: "Found it.",
			Native: []json.RawMessage{
				json.RawMessage(`{"type":"thinking","thinking":"Search first.","signature":"c2ln"}`),
				json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{"query":"issues"}}`),
				json.RawMessage(`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"mcp__github__list_issues"}]}}`),
			},
			ToolCalls: []request.ToolCall{call("toolu_9", "mcp__github__list_issues", `{"repo":"webapp"}`)}})
	case request.Gemini:
		// A thought part kept verbatim; a signed call and a signed text,
		// whose carriers lend their signatures back.
		out = append(out, request.Message{Role: request.RoleAssistant, Text: "Listing the issues now.",
			Native: []json.RawMessage{
				json.RawMessage(`{"text":"Search first.","thought":true}`),
				json.RawMessage(`{"text":"","thoughtSignature":"dGV4dA=="}`),
				json.RawMessage(`{"functionCall":{"id":"g9","name":"mcp__github__list_issues","args":{"repo":"webapp"}},"thoughtSignature":"c2ln"}`),
			},
			ToolCalls: []request.ToolCall{call("g9", "mcp__github__list_issues", `{"repo":"webapp"}`), call("g10", "Read", `{}`)}})
	case request.OpenAIResponses:
		out = append(out, request.Message{Role: request.RoleAssistant,
			Native: []json.RawMessage{
				json.RawMessage(`{"type":"tool_search_call","id":"ts_1","status":"completed","execution":"server","arguments":{"query":"issues"}}`),
				json.RawMessage(`{"type":"tool_search_output","id":"tso_1","status":"completed","execution":"server","tools":[]}`),
			},
			ToolCalls: []request.ToolCall{call("call_9", "mcp__github__list_issues", `{"repo":"webapp"}`)}})
	}
	return out
}

// TestEncodeDecodes: every message, encoded whole and streamed, decodes
// back to itself (arguments compacted, empty arguments as {}) with the usage
// it was given, through the library's decoders.
func TestEncodeDecodes(t *testing.T) {
	for _, p := range providers {
		for i, m := range messages(p) {
			t.Run(fmt.Sprintf("%s/%d", p, i), func(t *testing.T) {
				u := request.Usage{InputTokens: 5000, OutputTokens: 40, CacheReadTokens: 4096}
				if p == request.Anthropic {
					u.CacheWriteTokens = 700
				}
				whole, stream, err := Encode(p, i, m, u)
				require.NoError(t, err)
				want := m
				want.ToolCalls = append([]request.ToolCall(nil), m.ToolCalls...)
				for k := range want.ToolCalls {
					if len(want.ToolCalls[k].Arguments) == 0 { // sent as {}
						want.ToolCalls[k].Arguments = json.RawMessage(`{}`)
					}
				}
				got, err := request.DecodeReply(p, whole)
				require.NoError(t, err)
				assert.NotEmpty(t, got.ID, "the reply's id")
				want.ReplyID = got.ID
				assert.Equal(t, want, got.Message)
				assert.Equal(t, u, got.Usage)
				streamed, err := request.DecodeStream(p, bytes.NewReader(stream))
				require.NoError(t, err)
				assert.Equal(t, got, streamed, "streamed and whole decode alike")
				if len(m.ToolCalls) > 0 {
					assert.Contains(t, []string{"tool_use", "tool_calls", "completed", "STOP"}, got.StopReason) // Gemini says STOP for calls too
				}
			})
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	native := request.Message{Role: request.RoleAssistant, Text: "x", Native: []json.RawMessage{json.RawMessage(`{"type":"x"}`)}}
	_, _, err := Encode(request.OpenAIChat, 1, native, request.Usage{})
	assert.ErrorContains(t, err, "no native parts")
	_, _, err = Encode(request.Anthropic, 1, request.Message{Role: request.RoleAssistant, Native: []json.RawMessage{json.RawMessage(`[1]`)}}, request.Usage{})
	assert.ErrorContains(t, err, "not a JSON object")
	_, _, err = Encode(request.Anthropic, 1, request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "a", Name: "b", Arguments: json.RawMessage(`{`)}}}, request.Usage{})
	assert.ErrorContains(t, err, "not valid JSON")
	_, _, err = Encode("vertex", 1, request.Message{}, request.Usage{})
	assert.ErrorContains(t, err, "unknown provider")
}

// TestSimulate: the shared prefix is read from the cache (OpenAI: from
// 1,024 tokens, in steps of 128), Anthropic writes the rest.
func TestSimulate(t *testing.T) {
	count := func(s string) int { return len(s) } // one token a byte
	prev := []byte(strings.Repeat("p", 2000) + "AAAA")
	body := []byte(strings.Repeat("p", 2000) + "BBBBBB")
	u := Simulate(request.OpenAIChat, count, prev, body, "out")
	assert.Equal(t, request.Usage{InputTokens: 2006, OutputTokens: 3, CacheReadTokens: 1920}, u)
	u = Simulate(request.Anthropic, count, prev, body, "out")
	assert.Equal(t, request.Usage{InputTokens: 2006, OutputTokens: 3, CacheReadTokens: 2000, CacheWriteTokens: 6}, u)
	u = Simulate(request.OpenAIResponses, count, []byte("short"), []byte("shorter"), "")
	assert.Zero(t, u.CacheReadTokens, "under 1,024 tokens OpenAI caches nothing")
	u = Simulate(request.Anthropic, count, nil, body, "")
	assert.Equal(t, u.InputTokens, u.CacheWriteTokens, "the first request writes the cache")
}

// FuzzEncodeDecode encodes arbitrary text and arguments and decodes them
// back, whole and streamed: the decoders read every reply Encode writes.
func FuzzEncodeDecode(f *testing.F) {
	f.Add("hello", `{"a":1}`, uint8(0))
	f.Add("日本語テキスト", `{"s":"\u00e9"}`, uint8(1))
	f.Add("", `{}`, uint8(2))
	f.Fuzz(func(t *testing.T, text, args string, k uint8) {
		p := providers[int(k)%len(providers)]
		// A provider sends UTF-8 JSON; json.Valid alone lets invalid bytes
		// inside strings through, which the decoders rightly refuse.
		if !json.Valid([]byte(args)) || !strings.HasPrefix(strings.TrimSpace(args), "{") || !utf8Valid(text) || !utf8Valid(args) {
			return
		}
		m := request.Message{Role: request.RoleAssistant, Text: text, ToolCalls: []request.ToolCall{{ID: "c1", Name: "T", Arguments: json.RawMessage(args)}}}
		whole, stream, err := Encode(p, 1, m, request.Usage{InputTokens: 1})
		require.NoError(t, err)
		got, err := request.DecodeReply(p, whole)
		require.NoError(t, err)
		streamed, err := request.DecodeStream(p, bytes.NewReader(stream))
		require.NoError(t, err)
		require.Equal(t, got, streamed)
		require.Equal(t, text, got.Message.Text)
		var a, b any
		require.NoError(t, json.Unmarshal([]byte(args), &a))
		require.NoError(t, json.Unmarshal(got.Message.ToolCalls[0].Arguments, &b))
		require.Equal(t, a, b)
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

package request

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
)

// thinkingReplies are, per provider, a reply that thinks and then — in one
// assistant turn — searches for a deferred tool and calls it through
// defer_execute (Claude Code #69926: a deferred tool called in the turn of
// the search that loaded it, with thinking on), then a reply that thinks
// and answers. keep are the exact bytes of the thinking the provider must
// get back: blocks, encrypted reasoning, signatures.
var thinkingReplies = map[Provider]struct {
	call, answer string
	keep         []string
}{
	Anthropic: {
		call: `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[
			{"type":"thinking","thinking":"The user wants flaky issues: load list_issues and call it.","signature":"EqQBCkYIBxgCKkBt+/sig=="},
			{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw=="},
			{"type":"tool_use","id":"toolu_1","name":"tool_search","input":{"tool_names":["mcp__gh__list_issues"]}},
			{"type":"tool_use","id":"toolu_2","name":"defer_execute","input":{"tool_name":"mcp__gh__list_issues","params":{"text":"flaky"}}}],
			"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`,
		answer: `{"id":"msg_2","type":"message","role":"assistant","model":"m","content":[
			{"type":"thinking","thinking":"Both calls answered.","signature":"ErUBCkYIBxgCIkA2/sig2=="},
			{"type":"text","text":"One flaky issue."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":5}}`,
		keep: []string{
			`{"type":"thinking","thinking":"The user wants flaky issues: load list_issues and call it.","signature":"EqQBCkYIBxgCKkBt+/sig=="}`,
			`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw=="}`,
			`{"type":"thinking","thinking":"Both calls answered.","signature":"ErUBCkYIBxgCIkA2/sig2=="}`,
		},
	},
	OpenAIResponses: {
		call: `{"id":"resp_1","object":"response","status":"completed","output":[
			{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAABoReasoning1+/=="},
			{"type":"function_call","id":"fc_1","call_id":"call_1","name":"tool_search","arguments":"{\"tool_names\":[\"mcp__gh__list_issues\"]}","status":"completed"},
			{"type":"function_call","id":"fc_2","call_id":"call_2","name":"defer_execute","arguments":"{\"tool_name\":\"mcp__gh__list_issues\",\"params\":{\"text\":\"flaky\"}}","status":"completed"}],
			"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}`,
		answer: `{"id":"resp_2","object":"response","status":"completed","output":[
			{"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAAAABoReasoning2+/=="},
			{"type":"message","id":"msg_2","role":"assistant","status":"completed","content":[{"type":"output_text","text":"One flaky issue.","annotations":[]}]}],
			"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}`,
		keep: []string{
			`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAABoReasoning1+/=="}`,
			`{"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAAAABoReasoning2+/=="}`,
		},
	},
	Gemini: {
		call: `{"candidates":[{"content":{"role":"model","parts":[
			{"functionCall":{"id":"call_1","name":"tool_search","args":{"tool_names":["mcp__gh__list_issues"]}},"thoughtSignature":"CiQBSig1+/=="},
			{"functionCall":{"id":"call_2","name":"defer_execute","args":{"tool_name":"mcp__gh__list_issues","params":{"text":"flaky"}}}}]},
			"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5}}`,
		answer: `{"candidates":[{"content":{"role":"model","parts":[{"text":"One flaky issue.","thoughtSignature":"CiQBSig2+/=="}]},
			"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5}}`,
		keep: []string{`"thoughtSignature":"CiQBSig1+/=="`, `"thoughtSignature":"CiQBSig2+/=="`},
	},
}

// TestThinkingKeptExact (issue 44): on Anthropic with thinking, the
// Responses API with encrypted reasoning and Gemini with thought
// signatures, one assistant turn searches for a deferred tool and calls it
// through defer_execute (#69926); both calls are answered, and every body
// after it — in the session, and in one restored from state that dropped
// its messages — keeps the prefix and every thinking block, reasoning
// item and signature byte for byte.
func TestThinkingKeptExact(t *testing.T) {
	for p, tc := range thinkingReplies {
		t.Run(string(p), func(t *testing.T) {
			s := viewSession(t, p, vcAgent)
			s.cfg.DropMessages = true
			s.dropMessages()
			first, err := s.BuildRequest(Turn{Messages: []Message{userMsg("any flaky issues?")}})
			require.NoError(t, err)

			r, err := DecodeReply(p, []byte(tc.call))
			require.NoError(t, err)
			require.Len(t, r.Message.ToolCalls, 2)
			turn := Turn{Messages: []Message{r.Message}}
			for _, c := range r.Message.ToolCalls {
				res := s.Call(t.Context(), c.Name, c.Arguments)
				require.False(t, res.IsError, "%s: %s", c.Name, res.Text)
				turn.Messages = append(turn.Messages, Message{Role: RoleTool, CallID: c.ID, Text: res.Text})
			}
			assert.Contains(t, turn.Messages[2].Text, "list_issues ran with", "the call of the tool the same turn loaded is answered")
			second, err := s.BuildRequest(turn)
			require.NoError(t, err)

			a, err := DecodeReply(p, []byte(tc.answer))
			require.NoError(t, err)
			third, err := s.BuildRequest(Turn{Messages: []Message{a.Message, userMsg("thanks")}})
			require.NoError(t, err)

			saved, err := s.MarshalState()
			require.NoError(t, err)
			cfg := s.cfg
			restored, err := RestoreSession(cfg, saved, map[string]registry.Handler{})
			require.NoError(t, err)
			fourth, err := restored.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "You're welcome."}, userMsg("bye")}})
			require.NoError(t, err, "the restored body passes the send check")

			bodies := [][]byte{first, second, third, fourth}
			assert.Empty(t, wire.Conversation(string(p), bodies...))
			for i, b := range bodies {
				checkBody(t, p, b)
				if i == 0 {
					continue
				}
				assert.Contains(t, string(b), tc.keep[0], "body %d keeps the first turn's thinking", i)
			}
			for _, k := range tc.keep {
				assert.Equal(t, 1, strings.Count(string(fourth), k), "%s sent once, byte for byte", k)
			}
			assert.True(t, json.Valid(fourth))
		})
	}
}

// TestCompactionDeclared (issue 44): Anthropic's server-side compaction
// block, with its tool_changes, goes back byte for byte; a harness that
// then drops the messages the block replaced is refused by the send check
// until it declares the compaction, and the compacted body still carries
// the block exactly.
func TestCompactionDeclared(t *testing.T) {
	const block = `{"type":"compaction","content":"The user asked about flaky tests; none found.","encrypted_content":"Zm9vYmFy+/==","signature":"EqQBsig==","tool_changes":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"Write"}}]}`
	s := viewSession(t, Anthropic, vcAgent)
	_, err := s.BuildRequest(Turn{Messages: []Message{userMsg("a")}})
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "b"}, userMsg("c")}})
	require.NoError(t, err)
	r, err := DecodeReply(Anthropic, []byte(`{"id":"msg_3","type":"message","role":"assistant","model":"m","content":[`+block+`,{"type":"text","text":"d"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`))
	require.NoError(t, err)
	body, err := s.BuildRequest(Turn{Messages: []Message{r.Message, userMsg("e")}})
	require.NoError(t, err)
	require.Contains(t, string(body), block, "the compaction block goes back byte for byte")

	saved, err := s.MarshalState()
	require.NoError(t, err)
	compacted := editState(t, saved, func(st *state) { st.Messages = append(st.Messages[:1:1], st.Messages[3:]...) })
	c, err := RestoreSession(s.cfg, compacted, nil)
	require.NoError(t, err)
	_, err = c.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "f"}, userMsg("g")}})
	require.ErrorIs(t, err, ErrEdited, "dropping what was sent is refused")
	assert.Contains(t, err.Error(), "messages[1].content[0] differs from what was sent")
	c.DeclareRewrite()
	body, err = c.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "f"}, userMsg("g")}})
	require.NoError(t, err, "a declared compaction builds")
	assert.Contains(t, string(body), block)
	checkBody(t, Anthropic, body)
}

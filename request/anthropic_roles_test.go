package request

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
)

// TestAnthropicSameRoleNeighbours: two user messages in a row (a harness
// retrying after a network error) are accepted and combined into one user
// message; two assistant messages in a row are sent as they are, which
// the Messages API combines. Both bodies pass the rule book.
func TestAnthropicSameRoleNeighbours(t *testing.T) {
	s, err := NewSession(Config{Snapshot: registry.New(nil).Snapshot(), Provider: Anthropic, Model: "claude-sonnet-4-5",
		Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`256`)}})
	require.NoError(t, err)
	body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hello")}})
	require.NoError(t, err)
	body, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hello again")}})
	require.NoError(t, err, "a second user message is accepted")
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	require.Len(t, req.Messages, 1, "combined into one user message")
	assert.Equal(t, "user", req.Messages[0].Role)
	require.Len(t, req.Messages[0].Content, 2)
	assert.Contains(t, req.Messages[0].Content[1].Text, "hello again")
	assert.Empty(t, wire.Check(wire.Anthropic, body))

	body, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "one"}, {Role: RoleAssistant, Text: "two"}}})
	require.NoError(t, err, "two assistant messages are accepted")
	require.NoError(t, json.Unmarshal(body, &req))
	require.Len(t, req.Messages, 3, "sent as they are")
	assert.Empty(t, wire.Check(wire.Anthropic, body))

	_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "x", Arguments: json.RawMessage(`{}`)}}}, {Role: RoleAssistant, Text: "three"}}})
	assert.ErrorIs(t, err, ErrInvalidMessage, "a call still needs its result next")
}

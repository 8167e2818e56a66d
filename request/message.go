package request

import "encoding/json"

// Role is the author of a [Message].
type Role string

// The roles of the library's provider-neutral message form.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries one tool result, answering the call with ID CallID.
	RoleTool Role = "tool"
)

// Message is one message of a conversation in the library's provider-neutral
// form. Encoders turn it into each provider's shape. It is also the form of
// recorded transcripts (a JSON array of messages).
type Message struct {
	Role Role `json:"role"`
	// Text is the message's text (user or assistant), or a tool result's content.
	Text string `json:"text,omitempty"`
	// ToolCalls are the assistant's tool calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// CallID is, for RoleTool, the ID of the call this result answers.
	CallID string `json:"call_id,omitempty"`
	// IsError marks a tool result that reports a failure.
	IsError bool `json:"is_error,omitempty"`
}

// ToolCall is one tool call made by the assistant.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

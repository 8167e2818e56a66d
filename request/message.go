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
	// Text is the message's text (user or assistant), or a tool result's
	// content. A user's text is sent wrapped in <user_query>…</user_query>.
	Text string `json:"text,omitempty"`
	// Blocks are host blocks (reminders, identity context, announcements of
	// self-built tools) sent before a user message's text, in order. A
	// session fills them from [Turn.Inject]; a user message with Blocks and
	// no Text carries blocks only.
	Blocks []string `json:"blocks,omitempty"`
	// ToolCalls are the assistant's tool calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// CallID is, for RoleTool, the ID of the call this result answers.
	CallID string `json:"call_id,omitempty"`
	// IsError marks a tool result that reports a failure.
	IsError bool `json:"is_error,omitempty"`
	// ToolReferences are, on a tool result in a [Client] tool search
	// session, the deferred tools the result loads in the provider's
	// reference form (see [Session.Answer]): Anthropic tool_reference
	// blocks before the result's text, or the tools of a Responses
	// tool_search_output (which has no text: Text is then not sent).
	ToolReferences []string `json:"tool_references,omitempty"`
	// Native are an assistant message's provider-native parts, sent back
	// verbatim (compacted) before its text and tool calls: the blocks and
	// items a provider-side tool search leaves in a response — Anthropic's
	// server_tool_use and tool_search_tool_result content blocks, the
	// Responses API's tool_search_call and tool_search_output input items.
	// Each is one JSON object. OpenAI Chat Completions has none.
	// [DecodeReply] and [DecodeStream] keep every part of a reply that is
	// not text or a tool call here (thinking blocks and reasoning items
	// too), in the order the provider sent them. On a user message (on
	// Anthropic and OpenAI Responses only) they are a live-set change in
	// the provider's native form, sent right after the message: the
	// blocks of one Anthropic {"role":"system"} message, or Responses
	// input items ([Config.NativeToolChanges] fills them).
	Native []json.RawMessage `json:"native,omitempty"`
	// ReplyID is, on an assistant message decoded from a provider's reply,
	// the provider's id of that response ([Reply.ID]). It is not sent: a
	// session with [Config.Diagnostics] names the last one in its next
	// request, and a recorded transcript keeps it.
	ReplyID string `json:"reply_id,omitempty"`
}

// ToolCall is one tool call made by the assistant.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Turn is what one call of [Session.BuildRequest] adds to a conversation.
type Turn struct {
	// Messages are the new messages since the last request, in order:
	// typically the assistant's reply and its tool results, then a user
	// message. They join the session's history.
	Messages []Message
	// Inject are host blocks for this turn, inserted in order at the front
	// of the turn's last user message (or, in a turn without a user
	// message, in a block-only user message after its tool results).
	Inject []string
}

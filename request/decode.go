package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/registry"
)

// ErrReply reports a provider reply that cannot be decoded: not JSON, the
// wrong shape, a tool call without an ID or with arguments that are not a
// JSON object, a stream cut short. Decoding errors wrap it and name the
// event (streams) or the field (bodies).
var ErrReply = errors.New("request: malformed provider reply")

// Reply is one decoded provider response: the assistant's message, in the
// form [Session.BuildRequest] takes back, why the model stopped, and the
// tokens the provider counted.
type Reply struct {
	// Message is the assistant's message: its text (text blocks or parts
	// concatenated in order), its tool calls (arguments as the JSON object
	// the model wrote) and, verbatim, every other part the provider expects
	// back — Anthropic's server_tool_use, tool_search_tool_result, thinking
	// and redacted_thinking blocks, the Responses API's reasoning,
	// tool_search_call and tool_search_output items — in [Message.Native].
	Message Message
	// StopReason is the provider's own word for why generation stopped:
	// Anthropic's stop_reason ("end_turn", "tool_use", "max_tokens" ...),
	// Chat Completions' finish_reason ("stop", "tool_calls", "length" ...),
	// the Responses API's incomplete_details.reason when the response is
	// incomplete ("max_output_tokens" ...), its status otherwise
	// ("completed").
	StopReason string
	// Usage are the provider's token counts for this request, with its
	// cache diagnosis when the session asked for one.
	Usage Usage
	// ID is the provider's id of the response: Anthropic's message id
	// (msg_…), the Chat Completions id (chatcmpl-…), the Responses API's
	// response id (resp_…), Gemini's responseId. Message.ReplyID carries
	// it too, so that the session can name the reply in its next request
	// ([Config.Diagnostics]). Empty when the provider sent none.
	ID string
}

// Usage are the token counts a provider reports for one request, in one
// form for all providers.
type Usage struct {
	// InputTokens counts every input token of the request, cached or not
	// (those neither read from nor written to the cache are InputTokens -
	// CacheReadTokens - CacheWriteTokens):
	// OpenAI's prompt_tokens / input_tokens; Anthropic's input_tokens +
	// cache_read_input_tokens + cache_creation_input_tokens (Anthropic
	// reports the three apart).
	InputTokens int `json:"input_tokens"`
	// OutputTokens counts the generated tokens (reasoning included).
	OutputTokens int `json:"output_tokens"`
	// CacheReadTokens counts the input tokens served from the provider's
	// prefix cache: Anthropic's cache_read_input_tokens, OpenAI's
	// cached_tokens.
	CacheReadTokens int `json:"cache_read_tokens"`
	// CacheWriteTokens counts the input tokens written to the cache by this
	// request: Anthropic's cache_creation_input_tokens, OpenAI's
	// cache_write_tokens where reported (OpenAI caches without charging a
	// write, and usually reports none).
	CacheWriteTokens int `json:"cache_write_tokens"`
	// Diagnosis is the provider's explanation of the request's cache
	// reuse, when the session asked for one ([Config.Diagnostics]) and the
	// provider sent it; nil otherwise.
	Diagnosis *CacheDiagnosis `json:"cache_diagnosis,omitempty"`
}

// DecodeReply decodes a whole (non-streamed) response body of provider p:
// a Chat Completions chat.completion, a Responses API response or an
// Anthropic message. A body over 16 MiB is refused: that is the bound of
// one stream event, since the Responses API's response.completed event
// carries a whole response, and the longest reply any of the three APIs
// allows (128,000 output tokens, about 0.5 MB of text) fits many times
// over. Errors wrap [ErrReply] and name the field.
func DecodeReply(p Provider, body []byte) (Reply, error) {
	return decoder{}.DecodeReply(p, body)
}

func decodeReply(p Provider, body []byte) (Reply, error) {
	if !utf8.Valid(body) || !json.Valid(body) {
		return Reply{}, fmt.Errorf("%w: %s response body is not valid JSON", ErrReply, p)
	}
	enc, ok := encoderFor(p)
	if !ok {
		return Reply{}, fmt.Errorf("%w %q", ErrUnknownProvider, p)
	}
	return enc.decodeReply(body)
}

// replyError reports a problem at a named place of a reply.
func replyError(where, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrReply, where, fmt.Sprintf(format, args...))
}

// providerError turns an error object a provider sent instead of a reply
// into an error.
func providerError(where string, raw json.RawMessage) error {
	var e struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &e)
	return replyError(where, "the provider reported an error (type %q): %.200s", e.Type, e.Message)
}

// --- Chat Completions -------------------------------------------------------

// openaiCache is the cache counts both OpenAI APIs report in the details
// of their input tokens.
type openaiCache struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
	// Diagnosis is the provider's explanation of the request's cache
	// reuse, when the session asked for one ([Config.Diagnostics]) and the
	// provider sent it; nil otherwise.
	Diagnosis *CacheDiagnosis `json:"cache_diagnosis,omitempty"`
}

// usage returns the usage of in input and out output tokens with d's cache
// counts (none when d is nil).
func (d *openaiCache) usage(in, out int) Usage {
	u := Usage{InputTokens: in, OutputTokens: out}
	if d != nil {
		u.CacheReadTokens, u.CacheWriteTokens = d.CachedTokens, d.CacheWriteTokens
	}
	return u
}

type chatUsage struct {
	PromptTokens     int          `json:"prompt_tokens"`
	CompletionTokens int          `json:"completion_tokens"`
	Details          *openaiCache `json:"prompt_tokens_details"`
}

func (u *chatUsage) usage() Usage {
	if u == nil {
		return Usage{}
	}
	return u.Details.usage(u.PromptTokens, u.CompletionTokens)
}

type chatCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string  `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
}

func decodeChat(body []byte) (Reply, error) {
	var r struct {
		ID      string          `json:"id"`
		Error   json.RawMessage `json:"error"`
		Choices []struct {
			Message *struct {
				Role      string     `json:"role"`
				Content   *string    `json:"content"`
				Refusal   *string    `json:"refusal"`
				ToolCalls []chatCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *chatUsage `json:"usage"`
	}
	if err := unmarshalExact(body, &r); err != nil {
		return Reply{}, replyError("chat.completion", "%v", err)
	}
	if isObject(r.Error) {
		return Reply{}, providerError("chat.completion error", r.Error)
	}
	if len(r.Choices) == 0 || r.Choices[0].Message == nil {
		return Reply{}, replyError("chat.completion", "no choices[0].message")
	}
	c := r.Choices[0]
	b := replyBuilder{m: Message{Role: RoleAssistant}}
	if c.Message.Content != nil {
		b.addText(*c.Message.Content)
	} else if c.Message.Refusal != nil {
		b.addText(*c.Message.Refusal)
	}
	for i, tc := range c.Message.ToolCalls {
		where := fmt.Sprintf("choices[0].message.tool_calls[%d]", i)
		args := ""
		if tc.Function.Arguments != nil {
			args = *tc.Function.Arguments
		}
		call, err := toolCall(where, tc.ID, tc.Function.Name, []byte(args))
		if err != nil {
			return Reply{}, err
		}
		b.m.ToolCalls = append(b.m.ToolCalls, call)
	}
	rep, err := finishReply(&b, "chat.completion", c.FinishReason, r.Usage.usage())
	return identified(rep, err, r.ID, nil)
}

// finishReply returns the reply b assembled, with its stop reason and its
// usage once checked.
func finishReply(b *replyBuilder, where, stop string, u Usage) (Reply, error) {
	if err := u.check(where); err != nil {
		return Reply{}, err
	}
	m, err := b.message(where)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Message: m, StopReason: stop, Usage: u}, nil
}

// toolCall checks and builds one tool call: an ID, a name, and arguments
// that are empty (nil) or a JSON object, compacted: the form the session
// sends back, the same whether the reply was streamed or not.
func toolCall(where, id, name string, args []byte) (ToolCall, error) {
	if id == "" {
		return ToolCall{}, replyError(where, "tool call %.80q has no id", name)
	}
	if name == "" {
		return ToolCall{}, replyError(where, "tool call %.80q has no name", id)
	}
	if err := checkArguments(args); err != nil {
		return ToolCall{}, replyError(where, "tool call %.80q (id %.80q): arguments: %v", name, id, err)
	}
	if noArguments(args) {
		return ToolCall{ID: id, Name: name}, nil
	}
	return ToolCall{ID: id, Name: name, Arguments: json.RawMessage(jsonx.AppendCompact(nil, args))}, nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// --- Responses API ----------------------------------------------------------

type responsesUsage struct {
	InputTokens  int          `json:"input_tokens"`
	OutputTokens int          `json:"output_tokens"`
	Details      *openaiCache `json:"input_tokens_details"`
}

func (u *responsesUsage) usage() Usage {
	if u == nil {
		return Usage{}
	}
	return u.Details.usage(u.InputTokens, u.OutputTokens)
}

type responsesBody struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	Error      json.RawMessage `json:"error"`
	Incomplete *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output      []json.RawMessage `json:"output"`
	Usage       *responsesUsage   `json:"usage"`
	Diagnostics json.RawMessage   `json:"prompt_cache_diagnostics"`
}

func decodeResponses(body []byte) (Reply, error) {
	var r responsesBody
	if err := unmarshalExact(body, &r); err != nil {
		return Reply{}, replyError("response", "%v", err)
	}
	return r.reply("response")
}

func (r *responsesBody) reply(where string) (Reply, error) {
	if isObject(r.Error) {
		return Reply{}, providerError(where+".error", r.Error)
	}
	if r.Status == "failed" || r.Status == "cancelled" {
		return Reply{}, replyError(where, "status %q", r.Status)
	}
	b := replyBuilder{m: Message{Role: RoleAssistant}}
	for i, item := range r.Output {
		if err := addResponsesItem(&b, fmt.Sprintf("%s.output[%d]", where, i), item); err != nil {
			return Reply{}, err
		}
	}
	stop := r.Status
	if r.Incomplete != nil && r.Incomplete.Reason != "" {
		stop = r.Incomplete.Reason
	}
	d, err := responsesDiagnosis(where, r.Diagnostics)
	if err != nil {
		return Reply{}, err
	}
	rep, err := finishReply(&b, where, stop, r.Usage.usage())
	return identified(rep, err, r.ID, d)
}

// addResponsesItem adds one output item to m: message text, a function
// call, or — any other item — a native part kept verbatim.
func addResponsesItem(b *replyBuilder, where string, item json.RawMessage) error {
	var it struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		} `json:"content"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Execution string          `json:"execution"`
	}
	if !isObject(item) {
		return replyError(where, "want an item object")
	}
	if err := unmarshalExact(item, &it); err != nil {
		return replyError(where, "%v", err)
	}
	switch it.Type {
	case "message":
		if it.Role != "" && it.Role != "assistant" {
			return replyError(where, "message role %.40q, want assistant", it.Role)
		}
		for _, c := range it.Content {
			switch c.Type {
			case "output_text":
				b.addText(c.Text)
			case "refusal":
				b.addText(c.Refusal)
			}
		}
	case "function_call":
		var args string
		if len(it.Arguments) > 0 && string(it.Arguments) != "null" {
			if err := json.Unmarshal(it.Arguments, &args); err != nil {
				return replyError(where, "function_call arguments: want a string of JSON: %v", err)
			}
		}
		c, err := toolCall(where, it.CallID, it.Name, []byte(args))
		if err != nil {
			return err
		}
		b.m.ToolCalls = append(b.m.ToolCalls, c)
	case "tool_search_call":
		if it.Execution != "client" {
			b.m.Native = append(b.m.Native, json.RawMessage(jsonx.AppendCompact(nil, item)))
			return nil
		}
		// A client-executed search is the harness's to answer: a call
		// of tool_search (see Client), its arguments an object.
		c, err := toolCall(where, it.CallID, registry.ToolSearchName, it.Arguments)
		if err != nil {
			return err
		}
		b.m.ToolCalls = append(b.m.ToolCalls, c)
	case "":
		return replyError(where, "item has no type")
	default:
		b.m.Native = append(b.m.Native, json.RawMessage(jsonx.AppendCompact(nil, item)))
	}
	return nil
}

// --- Anthropic Messages -----------------------------------------------------

type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

// usage returns u in the common form; Anthropic's three input counts are
// summed, and a negative count or a sum that would wrap is an error.
func (u *anthropicUsage) usage(where string) (Usage, error) {
	if u == nil {
		return Usage{}, nil
	}
	in, err := sumTokens(where+".usage", u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens)
	if err != nil {
		return Usage{}, err
	}
	return Usage{
		InputTokens:      in,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}, nil
}

func decodeAnthropic(body []byte) (Reply, error) {
	var r struct {
		ID          string            `json:"id"`
		Diagnostics json.RawMessage   `json:"diagnostics"`
		Type        string            `json:"type"`
		Error       json.RawMessage   `json:"error"`
		Role        string            `json:"role"`
		Content     []json.RawMessage `json:"content"`
		StopReason  string            `json:"stop_reason"`
		Usage       *anthropicUsage   `json:"usage"`
	}
	if err := unmarshalExact(body, &r); err != nil {
		return Reply{}, replyError("message", "%v", err)
	}
	if r.Type == "error" || isObject(r.Error) {
		return Reply{}, providerError("message error", r.Error)
	}
	if r.Type != "message" || r.Role != "assistant" {
		return Reply{}, replyError("message", "type %.40q role %.40q, want a message from the assistant", r.Type, r.Role)
	}
	b := replyBuilder{m: Message{Role: RoleAssistant}}
	for i, block := range r.Content {
		if err := addAnthropicBlock(&b, "message.content", i, block); err != nil {
			return Reply{}, err
		}
	}
	u, err := r.Usage.usage("message")
	if err != nil {
		return Reply{}, err
	}
	d, err := anthropicDiagnosis("message", r.Diagnostics)
	if err != nil {
		return Reply{}, err
	}
	rep, err := finishReply(&b, "message", r.StopReason, u)
	return identified(rep, err, r.ID, d)
}

// addAnthropicBlock adds one content block to m: text, a tool_use call, or
// — any other block — a native part kept verbatim.
// where and i name the block in errors (where[i]).
func addAnthropicBlock(rb *replyBuilder, where string, i int, block json.RawMessage) error {
	var b struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	if !isObject(block) {
		return replyError(fmt.Sprintf("%s[%d]", where, i), "want a content block object")
	}
	if err := unmarshalExact(block, &b); err != nil {
		return replyError(fmt.Sprintf("%s[%d]", where, i), "%v", err)
	}
	switch b.Type {
	case "text":
		rb.addText(b.Text)
	case "tool_use":
		c, err := toolCall(fmt.Sprintf("%s[%d]", where, i), b.ID, b.Name, b.Input)
		if err != nil {
			return err
		}
		rb.m.ToolCalls = append(rb.m.ToolCalls, c)
	case "":
		return replyError(fmt.Sprintf("%s[%d]", where, i), "content block has no type")
	default:
		rb.m.Native = append(rb.m.Native, json.RawMessage(jsonx.AppendCompact(nil, block)))
	}
	return nil
}

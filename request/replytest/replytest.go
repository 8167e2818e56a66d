// Package replytest plays the provider's side of a conversation in tests
// and examples, in the style of net/http/httptest: [Encode] writes a
// scripted assistant message as the response body a provider would send,
// and as the same reply streamed in server-sent events, so that a harness
// runs its real decoding path (request.DecodeReply, request.DecodeStream)
// without a network; [Simulate] gives such a reply usage figures derived
// from the request it answers.
//
// The wire formats follow the providers' own recordings (see
// request/testdata/replies): Anthropic Messages, OpenAI Chat Completions
// (with usage in the last chunk), the OpenAI Responses API and the Gemini
// API (generateContent, streamGenerateContent?alt=sse).
//
// [NewServer] serves such replies from an httptest.Server, one per request,
// and records the request bodies.
//
// API: [Encode], [Simulate] and [Server]; nothing else is exported.
package replytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/request"
)

// Encode writes m, an assistant message, as provider p's reply number n
// (which makes the reply's IDs unique): whole is the response body, stream
// the same reply as a server-sent event stream, text and arguments cut
// into small deltas. A u.Diagnosis is sent as the provider's cache
// diagnosis (Anthropic's diagnostics, on message_start in the stream; the
// Responses API's prompt_cache_diagnostics), so that a test plays a
// provider that explains its misses; the other two have none. m's native parts come first, as the session sends
// them back; Chat Completions has none, and Encode reports an error for
// them. The stop reason is the provider's for tool calls or for a final
// text.
func Encode(p request.Provider, n int, m request.Message, u request.Usage) (whole, stream []byte, err error) {
	for _, c := range m.ToolCalls {
		if !json.Valid(argsOf(c)) {
			return nil, nil, fmt.Errorf("replytest: tool call %q: arguments are not valid JSON", c.ID)
		}
	}
	for i, part := range m.Native {
		if !json.Valid(part) || len(bytes.TrimSpace(part)) == 0 || bytes.TrimSpace(part)[0] != '{' {
			return nil, nil, fmt.Errorf("replytest: native part %d is not a JSON object", i)
		}
	}
	switch p {
	case request.Anthropic:
		whole, stream = anthropic(n, m, u)
	case request.OpenAIChat:
		if len(m.Native) > 0 {
			return nil, nil, fmt.Errorf("replytest: %s replies have no native parts", p)
		}
		whole, stream = chat(n, m, u)
	case request.OpenAIResponses:
		whole, stream = responses(n, m, u)
	case request.Gemini:
		whole, stream = gemini(n, m, u)
	default:
		return nil, nil, fmt.Errorf("replytest: unknown provider %q", p)
	}
	return whole, stream, nil
}

func argsOf(c request.ToolCall) json.RawMessage {
	if len(bytes.TrimSpace(c.Arguments)) == 0 {
		return json.RawMessage("{}")
	}
	return c.Arguments
}

// obj builds a JSON object with its keys in the given order: key, value
// pairs; a json.RawMessage value is kept as it is, anything else is
// marshalled.
func obj(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		b.Write(k)
		b.WriteByte(':')
		if raw, ok := kv[i+1].(json.RawMessage); ok {
			b.Write(raw)
			continue
		}
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			panic(fmt.Sprintf("replytest: %v", err)) // only values built here reach it
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func arr(items ...json.RawMessage) json.RawMessage {
	b := []byte{'['}
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

// chunks cuts s into pieces of at most n bytes, at rune boundaries.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		k := n
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		if k == 0 {
			k = n
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return append(out, s)
}

type sse struct{ b bytes.Buffer }

func (s *sse) event(name string, data json.RawMessage) {
	if name != "" {
		fmt.Fprintf(&s.b, "event: %s\n", name)
	}
	fmt.Fprintf(&s.b, "data: %s\n\n", data)
}

func compact(b []byte) json.RawMessage {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return json.RawMessage(b)
	}
	return out.Bytes()
}

func anthropic(n int, m request.Message, u request.Usage) ([]byte, []byte) {
	var blocks []json.RawMessage
	for _, part := range m.Native {
		blocks = append(blocks, compact(part))
	}
	if m.Text != "" {
		blocks = append(blocks, obj("type", "text", "text", m.Text))
	}
	for _, c := range m.ToolCalls {
		blocks = append(blocks, obj("type", "tool_use", "id", c.ID, "name", c.Name, "input", compact(argsOf(c))))
	}
	stop := "end_turn"
	if len(m.ToolCalls) > 0 {
		stop = "tool_use"
	}
	usage := func(out int) json.RawMessage {
		return obj("input_tokens", u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, "cache_creation_input_tokens", u.CacheWriteTokens,
			"cache_read_input_tokens", u.CacheReadTokens, "output_tokens", out)
	}
	id := fmt.Sprintf("msg_replytest_%02d", n)
	const model = "claude-sonnet-4-5-20250929"
	diag := func(kv []any) []any { return kv }
	if d := u.Diagnosis; d != nil {
		reason := json.RawMessage("null")
		switch d.Reason {
		case "":
		case "previous_message_not_found", "unavailable":
			reason = obj("type", d.Reason)
		default:
			reason = obj("type", d.Reason, "cache_missed_input_tokens", d.MissedTokens)
		}
		diag = func(kv []any) []any { return append(kv, "diagnostics", obj("cache_miss_reason", reason)) }
	}
	whole := obj(diag([]any{"id", id, "type", "message", "role", "assistant", "model", model,
		"content", arr(blocks...), "stop_reason", stop, "stop_sequence", nil, "usage", usage(u.OutputTokens)})...)

	var s sse
	// A stream carries the diagnosis on message_start.
	s.event("message_start", obj("type", "message_start", "message", obj(diag([]any{"id", id, "type", "message", "role", "assistant",
		"model", model, "content", json.RawMessage("[]"), "stop_reason", nil, "stop_sequence", nil, "usage", usage(1)})...)))
	i := 0
	for _, part := range m.Native {
		s.event("content_block_start", obj("type", "content_block_start", "index", i, "content_block", compact(part)))
		s.event("content_block_stop", obj("type", "content_block_stop", "index", i))
		i++
	}
	if m.Text != "" {
		s.event("content_block_start", obj("type", "content_block_start", "index", i, "content_block", obj("type", "text", "text", "")))
		s.event("ping", obj("type", "ping"))
		for _, c := range chunks(m.Text, 24) {
			s.event("content_block_delta", obj("type", "content_block_delta", "index", i, "delta", obj("type", "text_delta", "text", c)))
		}
		s.event("content_block_stop", obj("type", "content_block_stop", "index", i))
		i++
	}
	for _, c := range m.ToolCalls {
		s.event("content_block_start", obj("type", "content_block_start", "index", i, "content_block",
			obj("type", "tool_use", "id", c.ID, "name", c.Name, "input", json.RawMessage("{}"))))
		s.event("content_block_delta", obj("type", "content_block_delta", "index", i, "delta", obj("type", "input_json_delta", "partial_json", "")))
		for _, part := range chunks(string(compact(argsOf(c))), 12) {
			s.event("content_block_delta", obj("type", "content_block_delta", "index", i, "delta", obj("type", "input_json_delta", "partial_json", part)))
		}
		s.event("content_block_stop", obj("type", "content_block_stop", "index", i))
		i++
	}
	s.event("message_delta", obj("type", "message_delta", "delta", obj("stop_reason", stop, "stop_sequence", nil), "usage", obj("output_tokens", u.OutputTokens)))
	s.event("message_stop", obj("type", "message_stop"))
	return whole, s.b.Bytes()
}

func chat(n int, m request.Message, u request.Usage) ([]byte, []byte) {
	id := fmt.Sprintf("chatcmpl-replytest-%02d", n)
	const model = "gpt-4o-2024-08-06"
	var content any
	if m.Text != "" {
		content = m.Text
	}
	var calls []json.RawMessage
	for _, c := range m.ToolCalls {
		calls = append(calls, obj("id", c.ID, "type", "function", "function", obj("name", c.Name, "arguments", string(argsOf(c)))))
	}
	msg := []any{"role", "assistant", "content", content}
	if len(calls) > 0 {
		msg = append(msg, "tool_calls", arr(calls...))
	}
	msg = append(msg, "refusal", nil)
	stop := "stop"
	if len(calls) > 0 {
		stop = "tool_calls"
	}
	usage := obj("prompt_tokens", u.InputTokens, "completion_tokens", u.OutputTokens, "total_tokens", u.InputTokens+u.OutputTokens,
		"prompt_tokens_details", obj("cached_tokens", u.CacheReadTokens, "audio_tokens", 0),
		"completion_tokens_details", obj("reasoning_tokens", 0))
	whole := obj("id", id, "object", "chat.completion", "created", 1727346172, "model", model,
		"choices", arr(obj("index", 0, "message", obj(msg...), "logprobs", nil, "finish_reason", stop)),
		"usage", usage, "system_fingerprint", "fp_replytest")

	var s sse
	chunk := func(choices json.RawMessage, extra ...any) {
		s.event("", obj(append([]any{"id", id, "object", "chat.completion.chunk", "created", 1727346172, "model", model,
			"system_fingerprint", "fp_replytest", "choices", choices}, extra...)...))
	}
	delta := func(d json.RawMessage, finish any) json.RawMessage {
		return arr(obj("index", 0, "delta", d, "logprobs", nil, "finish_reason", finish))
	}
	var first any // "" before text, null before tool calls, as OpenAI streams them
	if m.Text != "" {
		first = ""
	}
	chunk(delta(obj("role", "assistant", "content", first, "refusal", nil), nil))
	if m.Text != "" {
		for _, c := range chunks(m.Text, 24) {
			chunk(delta(obj("content", c), nil))
		}
	}
	for k, c := range m.ToolCalls {
		chunk(delta(obj("tool_calls", arr(obj("index", k, "id", c.ID, "type", "function",
			"function", obj("name", c.Name, "arguments", "")))), nil))
		for _, part := range chunks(string(argsOf(c)), 12) {
			chunk(delta(obj("tool_calls", arr(obj("index", k, "function", obj("arguments", part)))), nil))
		}
	}
	chunk(delta(obj(), stop))
	chunk(json.RawMessage("[]"), "usage", usage)
	s.b.WriteString("data: [DONE]\n\n")
	return whole, s.b.Bytes()
}

func responses(n int, m request.Message, u request.Usage) ([]byte, []byte) {
	id := fmt.Sprintf("resp_replytest_%02d", n)
	const model = "gpt-4o-2024-08-06"
	var items, added []json.RawMessage
	for _, part := range m.Native {
		items = append(items, compact(part))
		added = append(added, compact(part))
	}
	if m.Text != "" {
		mid := fmt.Sprintf("msg_replytest_%02d", n)
		items = append(items, obj("id", mid, "type", "message", "status", "completed", "content",
			arr(obj("type", "output_text", "annotations", json.RawMessage("[]"), "text", m.Text)), "role", "assistant"))
		added = append(added, obj("id", mid, "type", "message", "status", "in_progress", "content", json.RawMessage("[]"), "role", "assistant"))
	}
	for k, c := range m.ToolCalls {
		fid := fmt.Sprintf("fc_replytest_%02d_%d", n, k)
		items = append(items, obj("id", fid, "type", "function_call", "status", "completed", "arguments", string(argsOf(c)), "call_id", c.ID, "name", c.Name))
		added = append(added, obj("id", fid, "type", "function_call", "status", "in_progress", "arguments", "", "call_id", c.ID, "name", c.Name))
	}
	usage := obj("input_tokens", u.InputTokens, "input_tokens_details", obj("cached_tokens", u.CacheReadTokens),
		"output_tokens", u.OutputTokens, "output_tokens_details", obj("reasoning_tokens", 0), "total_tokens", u.InputTokens+u.OutputTokens)
	resp := func(status string, output json.RawMessage, usage any) json.RawMessage {
		kv := []any{"id", id, "object", "response", "created_at", 1741290958, "status", status, "error", nil, "incomplete_details", nil,
			"model", model, "output", output, "parallel_tool_calls", true}
		if d := u.Diagnosis; d != nil && status == "completed" {
			kv = append(kv, "prompt_cache_diagnostics", responsesDiagnosis(d))
		}
		return obj(append(kv, "usage", usage)...)
	}
	whole := resp("completed", arr(items...), usage)

	var s sse
	seq := 0
	ev := func(typ string, kv ...any) {
		s.event(typ, obj(append(append([]any{"type", typ}, kv...), "sequence_number", seq)...))
		seq++
	}
	ev("response.created", "response", resp("in_progress", json.RawMessage("[]"), nil))
	ev("response.in_progress", "response", resp("in_progress", json.RawMessage("[]"), nil))
	for i := range items {
		ev("response.output_item.added", "output_index", i, "item", added[i])
		var it struct{ ID, Type, Arguments string }
		_ = json.Unmarshal(items[i], &it)
		switch {
		case i < len(m.Native):
		case it.Type == "message":
			ev("response.content_part.added", "item_id", it.ID, "output_index", i, "content_index", 0, "part", obj("type", "output_text", "annotations", json.RawMessage("[]"), "text", ""))
			for _, c := range chunks(m.Text, 24) {
				ev("response.output_text.delta", "item_id", it.ID, "output_index", i, "content_index", 0, "delta", c)
			}
			ev("response.output_text.done", "item_id", it.ID, "output_index", i, "content_index", 0, "text", m.Text)
		default:
			for _, part := range chunks(it.Arguments, 12) {
				ev("response.function_call_arguments.delta", "item_id", it.ID, "output_index", i, "delta", part)
			}
			ev("response.function_call_arguments.done", "item_id", it.ID, "output_index", i, "arguments", it.Arguments)
		}
		ev("response.output_item.done", "output_index", i, "item", items[i])
	}
	ev("response.completed", "response", resp("completed", arr(items...), usage))
	return whole, s.b.Bytes()
}

// responsesDiagnosis is d as the Responses API sends it: a cache_miss with
// its reason, or the other types by name; null without a reason.
func responsesDiagnosis(d *request.CacheDiagnosis) json.RawMessage {
	switch d.Reason {
	case "":
		return json.RawMessage("null")
	case "cache_hit", "comparison_response_not_found", "unavailable":
		return obj("type", d.Reason)
	}
	return obj("type", "cache_miss", "reason", d.Reason, "cache_missed_tokens", d.MissedTokens)
}

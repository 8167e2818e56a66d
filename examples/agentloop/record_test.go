package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
	"github.com/toolshelf/toolshelf/request/wire"
)

// This file writes the recordings under testdata/ (go test
// ./examples/agentloop -run TestRecordings -update) and, without -update,
// checks that they are what it would write. The replies are a script — the
// same eight answers for every provider — encoded in each provider's wire
// format, the format of the providers' own recordings under
// request/testdata/replies, whole and as server-sent events. Their usage
// figures are simulated from the request each reply answers: input =
// tokens of the request body, counted as the ledger counts for the model
// (o200k_base for gpt-4o; for Claude, whose tokenizer is not public, the
// marked estimate); cache read = tokens of the
// bytes the body shares with the previous request (OpenAI: only from 1,024
// tokens on, in steps of 128, as OpenAI's cache works); Anthropic writes
// the rest of the body to the cache (its breakpoint is on the last block);
// output = tokens of the reply's content.

// scriptStep is one scripted answer: tool calls, or a final text.
type scriptStep struct {
	calls [][2]string // name, arguments
	text  string
}

var scriptSteps = []scriptStep{
	{calls: [][2]string{{"Bash", `{"command":"rm -rf build /"}`}}},
	{calls: [][2]string{{"Bash", `{"command":"make clean"}`}, {"Write", `{"path":"notes/release.md","content":"# v1.2\n"}`}}},
	{calls: [][2]string{{"tool_search", `{"tool_names":["Deploy","DropDatabase"]}`}}},
	{calls: [][2]string{{"defer_execute", `{"tool_name":"Deploy","params":{"env":"production"}}`}}},
	{calls: [][2]string{{"defer_execute", `{"tool_name":"Deploy","params":{"env":"staging"}}`}}},
	{calls: [][2]string{{"defer_execute", `{"tool_name":"DropDatabase","params":{"name":"test_old"}}`}}},
	{calls: [][2]string{{"DropDatabase", `{"name":"test_old"}`}}},
	{text: "Build cleaned, release notes written, deployed to staging. Production needs your approval, and dropping databases is not allowed in this harness."},
}

// generator answers each request with the next scripted step, encoded for
// its provider; it keeps the stream form of every reply too.
type generator struct {
	p        request.Provider
	counter  *budget.Counter
	step     int
	prev     []byte
	whole    [][]byte
	streamed [][]byte
}

func (g *generator) Next(ctx context.Context, body []byte) ([]byte, error) {
	if g.step >= len(scriptSteps) {
		return nil, fmt.Errorf("script exhausted")
	}
	st := scriptSteps[g.step]
	g.step++
	u := g.usage(body, st)
	g.prev = body
	w, s := encodeReply(g.p, g.step, st, u)
	g.whole, g.streamed = append(g.whole, w), append(g.streamed, s)
	return w, nil
}

func (g *generator) usage(body []byte, st scriptStep) request.Usage {
	tok := func(b []byte) int { return g.counter.Count(budget.KindJSON, string(b)).N }
	u := request.Usage{InputTokens: tok(body)}
	content := st.text
	for _, c := range st.calls {
		content += c[0] + c[1]
	}
	u.OutputTokens = g.counter.Count(budget.KindProse, content).N
	read := 0
	if g.prev != nil {
		shared := len(g.prev)
		if d := wire.Diff(g.prev, body); d != nil {
			shared = d.Offset
		}
		read = tok(body[:shared])
	}
	switch g.p {
	case request.Anthropic:
		u.CacheReadTokens = read
		u.CacheWriteTokens = u.InputTokens - read
	default:
		if read >= 1024 {
			u.CacheReadTokens = read / 128 * 128
		}
	}
	return u
}

// callID is the provider-style ID of the k-th call of step n.
func callID(p request.Provider, n, k int) string {
	if p == request.Anthropic {
		return fmt.Sprintf("toolu_agentloop_%02d_%d", n, k)
	}
	return fmt.Sprintf("call_agentloop_%02d_%d", n, k)
}

// js is an ordered JSON object builder: key, value pairs; a value that is
// a json.RawMessage is kept, anything else is marshalled.
func js(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
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
			panic(err)
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

// chunks splits s into pieces of at most n bytes, at rune boundaries.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		k := n
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
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

// encodeReply encodes step n in provider p's wire format, whole and
// streamed.
func encodeReply(p request.Provider, n int, st scriptStep, u request.Usage) (whole, stream []byte) {
	switch p {
	case request.Anthropic:
		return encodeAnthropic(n, st, u)
	case request.OpenAIChat:
		return encodeChat(n, st, u)
	default:
		return encodeResponses(n, st, u)
	}
}

func encodeAnthropic(n int, st scriptStep, u request.Usage) ([]byte, []byte) {
	var blocks []json.RawMessage
	if st.text != "" {
		blocks = append(blocks, js("type", "text", "text", st.text))
	}
	for k, c := range st.calls {
		blocks = append(blocks, js("type", "tool_use", "id", callID(request.Anthropic, n, k), "name", c[0], "input", json.RawMessage(c[1])))
	}
	stop := "end_turn"
	if len(st.calls) > 0 {
		stop = "tool_use"
	}
	usage := func(out int) json.RawMessage {
		return js("input_tokens", u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, "cache_creation_input_tokens", u.CacheWriteTokens,
			"cache_read_input_tokens", u.CacheReadTokens, "output_tokens", out)
	}
	id := fmt.Sprintf("msg_agentloop_%02d", n)
	whole := js("id", id, "type", "message", "role", "assistant", "model", "claude-sonnet-4-5-20250929",
		"content", arr(blocks...), "stop_reason", stop, "stop_sequence", nil, "usage", usage(u.OutputTokens))

	var s sse
	s.event("message_start", js("type", "message_start", "message", js("id", id, "type", "message", "role", "assistant",
		"model", "claude-sonnet-4-5-20250929", "content", json.RawMessage("[]"), "stop_reason", nil, "stop_sequence", nil, "usage", usage(1))))
	i := 0
	if st.text != "" {
		s.event("content_block_start", js("type", "content_block_start", "index", i, "content_block", js("type", "text", "text", "")))
		s.event("ping", js("type", "ping"))
		for _, c := range chunks(st.text, 24) {
			s.event("content_block_delta", js("type", "content_block_delta", "index", i, "delta", js("type", "text_delta", "text", c)))
		}
		s.event("content_block_stop", js("type", "content_block_stop", "index", i))
		i++
	}
	for k, c := range st.calls {
		s.event("content_block_start", js("type", "content_block_start", "index", i, "content_block",
			js("type", "tool_use", "id", callID(request.Anthropic, n, k), "name", c[0], "input", json.RawMessage("{}"))))
		s.event("content_block_delta", js("type", "content_block_delta", "index", i, "delta", js("type", "input_json_delta", "partial_json", "")))
		for _, part := range chunks(c[1], 12) {
			s.event("content_block_delta", js("type", "content_block_delta", "index", i, "delta", js("type", "input_json_delta", "partial_json", part)))
		}
		s.event("content_block_stop", js("type", "content_block_stop", "index", i))
		i++
	}
	s.event("message_delta", js("type", "message_delta", "delta", js("stop_reason", stop, "stop_sequence", nil), "usage", js("output_tokens", u.OutputTokens)))
	s.event("message_stop", js("type", "message_stop"))
	return whole, s.b.Bytes()
}

func encodeChat(n int, st scriptStep, u request.Usage) ([]byte, []byte) {
	id := fmt.Sprintf("chatcmpl-agentloop-%02d", n)
	var content any
	if st.text != "" {
		content = st.text
	}
	var calls []json.RawMessage
	for k, c := range st.calls {
		calls = append(calls, js("id", callID(request.OpenAIChat, n, k), "type", "function", "function", js("name", c[0], "arguments", c[1])))
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
	usage := js("prompt_tokens", u.InputTokens, "completion_tokens", u.OutputTokens, "total_tokens", u.InputTokens+u.OutputTokens,
		"prompt_tokens_details", js("cached_tokens", u.CacheReadTokens, "audio_tokens", 0),
		"completion_tokens_details", js("reasoning_tokens", 0))
	head := []any{"id", id, "object", "chat.completion", "created", 1727346172, "model", "gpt-4o-2024-08-06"}
	whole := js(append(head, "choices", arr(js("index", 0, "message", js(msg...), "logprobs", nil, "finish_reason", stop)),
		"usage", usage, "system_fingerprint", "fp_agentloop")...)

	var s sse
	chunk := func(choices json.RawMessage, extra ...any) {
		s.event("", js(append([]any{"id", id, "object", "chat.completion.chunk", "created", 1727346172, "model", "gpt-4o-2024-08-06",
			"system_fingerprint", "fp_agentloop", "choices", choices}, extra...)...))
	}
	delta := func(d json.RawMessage, finish any) json.RawMessage {
		return arr(js("index", 0, "delta", d, "logprobs", nil, "finish_reason", finish))
	}
	chunk(delta(js("role", "assistant", "content", content2(st.text), "refusal", nil), nil))
	for _, c := range chunks(st.text, 24) {
		if c != "" {
			chunk(delta(js("content", c), nil))
		}
	}
	for k, c := range st.calls {
		chunk(delta(js("tool_calls", arr(js("index", k, "id", callID(request.OpenAIChat, n, k), "type", "function",
			"function", js("name", c[0], "arguments", "")))), nil))
		for _, part := range chunks(c[1], 12) {
			chunk(delta(js("tool_calls", arr(js("index", k, "function", js("arguments", part)))), nil))
		}
	}
	chunk(delta(js(), stop))
	chunk(json.RawMessage("[]"), "usage", usage)
	s.b.WriteString("data: [DONE]\n\n")
	return whole, s.b.Bytes()
}

// content2 is the first chunk's content: "" before text, null before
// tool calls, as OpenAI streams them.
func content2(text string) any {
	if text != "" {
		return ""
	}
	return nil
}

func encodeResponses(n int, st scriptStep, u request.Usage) ([]byte, []byte) {
	id := fmt.Sprintf("resp_agentloop_%02d", n)
	var items, added []json.RawMessage
	if st.text != "" {
		mid := fmt.Sprintf("msg_agentloop_%02d", n)
		items = append(items, js("id", mid, "type", "message", "status", "completed", "content",
			arr(js("type", "output_text", "annotations", json.RawMessage("[]"), "text", st.text)), "role", "assistant"))
		added = append(added, js("id", mid, "type", "message", "status", "in_progress", "content", json.RawMessage("[]"), "role", "assistant"))
	}
	for k, c := range st.calls {
		fid := fmt.Sprintf("fc_agentloop_%02d_%d", n, k)
		items = append(items, js("id", fid, "type", "function_call", "status", "completed", "arguments", c[1], "call_id", callID(request.OpenAIResponses, n, k), "name", c[0]))
		added = append(added, js("id", fid, "type", "function_call", "status", "in_progress", "arguments", "", "call_id", callID(request.OpenAIResponses, n, k), "name", c[0]))
	}
	usage := js("input_tokens", u.InputTokens, "input_tokens_details", js("cached_tokens", u.CacheReadTokens),
		"output_tokens", u.OutputTokens, "output_tokens_details", js("reasoning_tokens", 0), "total_tokens", u.InputTokens+u.OutputTokens)
	resp := func(status string, output json.RawMessage, usage any) json.RawMessage {
		return js("id", id, "object", "response", "created_at", 1741290958, "status", status, "error", nil, "incomplete_details", nil,
			"model", "gpt-4o-2024-08-06", "output", output, "parallel_tool_calls", true, "usage", usage)
	}
	whole := resp("completed", arr(items...), usage)

	var s sse
	seq := 0
	ev := func(typ string, kv ...any) {
		s.event(typ, js(append(append([]any{"type", typ}, kv...), "sequence_number", seq)...))
		seq++
	}
	ev("response.created", "response", resp("in_progress", json.RawMessage("[]"), nil))
	ev("response.in_progress", "response", resp("in_progress", json.RawMessage("[]"), nil))
	for i := range items {
		ev("response.output_item.added", "output_index", i, "item", added[i])
		var it struct{ ID, Type, Arguments string }
		_ = json.Unmarshal(items[i], &it)
		if it.Type == "message" {
			ev("response.content_part.added", "item_id", it.ID, "output_index", i, "content_index", 0, "part", js("type", "output_text", "annotations", json.RawMessage("[]"), "text", ""))
			for _, c := range chunks(st.text, 24) {
				ev("response.output_text.delta", "item_id", it.ID, "output_index", i, "content_index", 0, "delta", c)
			}
			ev("response.output_text.done", "item_id", it.ID, "output_index", i, "content_index", 0, "text", st.text)
		} else {
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

var providers = []request.Provider{request.Anthropic, request.OpenAIChat, request.OpenAIResponses}

// TestRecordings writes (-update) or checks the recorded replies.
func TestRecordings(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			g := &generator{p: p, counter: budget.CounterForModel(models[p])}
			_, err := run(&bytes.Buffer{}, g, Options{Provider: p})
			require.NoError(t, err)
			require.Len(t, g.whole, len(scriptSteps))
			for i := range g.whole {
				base := filepath.Join("testdata", string(p), fmt.Sprintf("%02d", i+1))
				requesttest.Golden(t, base+".json", append(g.whole[i], '\n'))
				requesttest.Golden(t, base+".sse", g.streamed[i])
			}
		})
	}
}

// recordedUsage reads the usage of every recorded whole reply of p with a
// plain JSON decode of the provider's own field names: the figures the
// ledger must show.
func recordedUsage(t *testing.T, p request.Provider) (in, out, read, write int) {
	t.Helper()
	for i := 1; ; i++ {
		b, err := recordings.ReadFile(fmt.Sprintf("testdata/%s/%02d.json", p, i))
		if err != nil {
			require.Greater(t, i, 1)
			return
		}
		var r map[string]any
		require.NoError(t, json.Unmarshal(b, &r))
		u := r["usage"].(map[string]any)
		num := func(m map[string]any, k string) int { f, _ := m[k].(float64); return int(f) }
		switch p {
		case request.Anthropic:
			in += num(u, "input_tokens") + num(u, "cache_read_input_tokens") + num(u, "cache_creation_input_tokens")
			out += num(u, "output_tokens")
			read += num(u, "cache_read_input_tokens")
			write += num(u, "cache_creation_input_tokens")
		case request.OpenAIChat:
			in += num(u, "prompt_tokens")
			out += num(u, "completion_tokens")
			read += num(u["prompt_tokens_details"].(map[string]any), "cached_tokens")
		default:
			in += num(u, "input_tokens")
			out += num(u, "output_tokens")
			read += num(u["input_tokens_details"].(map[string]any), "cached_tokens")
		}
	}
}

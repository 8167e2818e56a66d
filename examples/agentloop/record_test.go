package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// This file writes the recordings under testdata/ (go test
// ./examples/agentloop -run TestRecordings with TOOLSHELF_UPDATE=1) and, without it,
// checks that they are what it would write. The replies are a script — the
// same eight answers for every provider — encoded by request/replytest in
// each provider's wire format, the format of the providers' own
// recordings under request/testdata/replies, whole and as server-sent
// events, with usage figures replytest.Simulate derives from the request
// each reply answers (tokens counted as the ledger counts them for the
// model: o200k_base for gpt-4o, the marked estimate for Claude).

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
	clock    *simClock // the loop's: an entry older than the provider's TTL is gone
	prevAt   time.Time
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
	m := request.Message{Role: request.RoleAssistant, Text: st.text}
	output := st.text
	for k, c := range st.calls {
		m.ToolCalls = append(m.ToolCalls, request.ToolCall{ID: callID(g.p, g.step, k), Name: c[0], Arguments: json.RawMessage(c[1])})
		output += c[0] + c[1]
	}
	count := func(s string) int { return g.counter.Count(budget.KindJSON, s).N }
	prev := g.prev
	if now := g.clock.now(); now.Sub(g.prevAt) > budget.DefaultTTL(g.p, nil) {
		prev = nil // expired: Anthropic writes the whole body again
	}
	u := replytest.Simulate(g.p, count, prev, body, output)
	g.prev, g.prevAt = body, g.clock.now()
	w, s, err := replytest.Encode(g.p, g.step, m, u)
	if err != nil {
		return nil, err
	}
	g.whole, g.streamed = append(g.whole, w), append(g.streamed, s)
	return w, nil
}

// callID is the provider-style ID of the k-th call of step n.
func callID(p request.Provider, n, k int) string {
	if p == request.Anthropic {
		return fmt.Sprintf("toolu_agentloop_%02d_%d", n, k)
	}
	return fmt.Sprintf("call_agentloop_%02d_%d", n, k)
}

var providers = []request.Provider{request.Anthropic, request.OpenAIChat, request.OpenAIResponses}

// TestRecordings writes (TOOLSHELF_UPDATE=1) or checks the recorded replies.
func TestRecordings(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			clock := newSimClock()
			g := &generator{p: p, counter: budget.CounterForModel(models[p]), clock: clock}
			_, err := run(&bytes.Buffer{}, g, Options{Provider: p, clock: clock})
			require.NoError(t, err)
			require.Len(t, g.whole, len(scriptSteps))
			for i := range g.whole {
				base := filepath.Join("testdata", string(p), fmt.Sprintf("%02d", i+1))
				goldenfile.Golden(t, base+".json", append(g.whole[i], '\n'))
				goldenfile.Golden(t, base+".sse", g.streamed[i])
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

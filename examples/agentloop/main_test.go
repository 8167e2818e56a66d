package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// recorder keeps every request body the loop sends.
type recorder struct {
	Model
	bodies [][]byte
}

func (r *recorder) Next(ctx context.Context, body []byte) ([]byte, error) {
	r.bodies = append(r.bodies, body)
	return r.Model.Next(ctx, body)
}

// TestAgentLoop runs the loop on the recorded replies of every provider,
// whole and streamed, through the library's decoders.
func TestAgentLoop(t *testing.T) {
	for _, p := range providers {
		var wholeBodies [][]byte
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%t", p, stream), func(t *testing.T) {
				o := Options{Provider: p, Stream: stream}
				m, err := newRecorded(o)
				require.NoError(t, err)
				rec := &recorder{Model: m}
				var buf bytes.Buffer
				ledger, err := run(&buf, rec, o)
				require.NoError(t, err)
				out := buf.String()

				// Every turn hit the cache: the prefix never moved, and each
				// body only appended to the one before it.
				require.Len(t, rec.bodies, len(scriptSteps))
				requesttest.AssertStablePrefix(t, rec.bodies...)
				for i := 1; i < len(rec.bodies); i++ {
					requesttest.AssertAppendOnly(t, p, rec.bodies[i-1], rec.bodies[i])
				}
				assert.NotContains(t, out, "PREFIX CHANGED")
				// Streamed or whole, the replies decode to the same
				// messages: the requests are the same bytes.
				if stream {
					require.Len(t, wholeBodies, len(rec.bodies))
					for i := range rec.bodies {
						assert.Equal(t, string(wholeBodies[i]), string(rec.bodies[i]), "request %d", i+1)
					}
				} else {
					wholeBodies = rec.bodies
				}

				// The ledger's figures are the recorded usage.
				in, outTok, read, write := recordedUsage(t, p)
				total := ledger.Total()
				assert.Equal(t, in, total.InputTokens)
				assert.Equal(t, outTok, total.OutputTokens)
				assert.Equal(t, read, total.CacheReadTokens)
				assert.Equal(t, write, total.CacheWriteTokens)
				assert.Len(t, ledger.Turns(), len(scriptSteps))
				assert.Contains(t, out, "Usage ledger")
				if p == "anthropic" {
					assert.Positive(t, read, "the recorded Anthropic replies read the prefix from the cache")
				}

				// Only the allowed calls reached a handler, with the rewritten
				// params; each handler read its call ID from its context.
				ran := out[strings.Index(out, "handlers that ran:"):]
				ran = ran[:strings.Index(ran, "\n")]
				id := func(n, k int) string { return callID(p, n, k) }
				assert.Equal(t, `handlers that ran: Bash {"command":"make clean"} (`+id(2, 0)+`); Write {"content":"# v1.2\n","path":"/workspace/notes/release.md"} (`+id(2, 1)+`); Deploy {"env":"staging"} (`+id(5, 0)+`)`, ran)

				for _, want := range []string{
					"guard blocked Bash by hook no-rm-rf",
					"guard rewritten Write by hook sandbox-writes",
					"guard rejected Deploy (via defer_execute) by Ask(Deploy)",
					"guard approved Deploy (via defer_execute) by Ask(Deploy)",
					// The deny rule sees the target, not the wrapper, both ways.
					"guard denied DropDatabase (via defer_execute) by Deny(DropDatabase)",
					"guard denied DropDatabase by Deny(DropDatabase)",
					`ask   Deploy {"env":"production"}? the user says no`,
				} {
					assert.Contains(t, out, want)
				}
				assert.Equal(t, 2, strings.Count(out, "Permission denied"), "the model was told, both times")
				// A deferred tool's schema is not in the prefix until the model loads it.
				first := string(rec.bodies[0][:wire.PrefixLen(rec.bodies[0])])
				assert.NotContains(t, first, "Irreversible")
				assert.Contains(t, first, "Deploy")
				// A tool every call of which a rule denies is not offered at
				// all; the model that calls it anyway is told "denied".
				assert.NotContains(t, first, "DropDatabase")
			})
		}
	}
}

func TestLoopStopsWhenTheRecordingRunsOut(t *testing.T) {
	o := Options{Provider: "anthropic"}
	m, err := newRecorded(o)
	require.NoError(t, err)
	m.replies = m.replies[:2] // never answers in text
	_, err = run(&bytes.Buffer{}, m, o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "recorded replies exhausted")
}

func TestUnknownProvider(t *testing.T) {
	_, err := newRecorded(Options{Provider: "vertex"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no recorded replies for provider "vertex"`)
}

// loopy never stops calling tools.
type loopy struct{ n int }

func (l *loopy) Next(ctx context.Context, body []byte) ([]byte, error) {
	l.n++
	return []byte(fmt.Sprintf(`{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"c%d","name":"Read","input":{"path":"a"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`, l.n)), nil
}

func TestLoopIsBounded(t *testing.T) {
	l := &loopy{}
	_, err := run(&bytes.Buffer{}, l, Options{Provider: "anthropic"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no answer after")
	assert.Equal(t, maxTurns, l.n)
}

// A reply the decoder cannot read stops the loop with an error naming it.
type garbled struct{}

func (garbled) Next(ctx context.Context, body []byte) ([]byte, error) {
	return []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"), nil
}

func TestLoopStopsOnABrokenReply(t *testing.T) {
	_, err := run(&bytes.Buffer{}, garbled{}, Options{Provider: "anthropic", Stream: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reply 1")
	assert.Contains(t, err.Error(), "before its terminal event")
}

// TestLedgerDoc keeps docs/usage-ledger.md's ledger blocks identical to a
// run on the recorded whole replies; with TOOLSHELF_UPDATE=1 it rewrites them.
func TestLedgerDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "usage-ledger.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(doc)
	for _, p := range providers {
		o := Options{Provider: p}
		m, err := newRecorded(o)
		require.NoError(t, err)
		var buf bytes.Buffer
		_, err = run(&buf, m, o)
		require.NoError(t, err)
		out := buf.String()
		block := out[strings.Index(out, "Usage ledger"):]
		marker := "<!-- ledger:" + string(p) + " -->\n```text\n"
		i := strings.Index(text, marker)
		require.NotEqual(t, -1, i, "docs/usage-ledger.md has no block for %s", p)
		start := i + len(marker)
		end := start + strings.Index(text[start:], "```\n")
		if goldenfile.Updating() {
			text = text[:start] + block + text[end:]
			continue
		}
		assert.Equal(t, block, text[start:end], "docs/usage-ledger.md (%s) differs from a run; TOOLSHELF_UPDATE=1 go test ./examples/agentloop", p)
	}
	if goldenfile.Updating() {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// recorder keeps every request body the loop sends.
type recorder struct {
	Model
	bodies [][]byte
}

func (r *recorder) Next(ctx context.Context, body []byte) (request.Message, error) {
	r.bodies = append(r.bodies, body)
	return r.Model.Next(ctx, body)
}

func TestAgentLoop(t *testing.T) {
	rec := &recorder{Model: newScript()}
	var buf bytes.Buffer
	require.NoError(t, run(&buf, rec))
	out := buf.String()

	// Every turn hit the cache: the prefix never moved.
	require.Len(t, rec.bodies, 8)
	requesttest.AssertStablePrefix(t, rec.bodies...)
	assert.NotContains(t, out, "PREFIX CHANGED")

	// Only the allowed calls reached a handler, with the rewritten params.
	ran := out[strings.Index(out, "handlers that ran:"):]
	assert.Equal(t, `handlers that ran: Bash {"command":"make clean"}; Write {"content":"# v1.2\n","path":"/workspace/notes/release.md"}; Deploy {"env":"staging"}`+"\n", ran)

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
	first := string(rec.bodies[0][:requesttest.PrefixLen(rec.bodies[0])])
	assert.NotContains(t, first, "Irreversible")
	assert.Contains(t, first, "DropDatabase")
}

func TestLoopStopsWhenTheScriptRunsOut(t *testing.T) {
	s := newScript()
	s.replies = s.replies[:2] // never answers in text
	var buf bytes.Buffer
	err := run(&buf, s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "script exhausted")
}

// loopy never stops calling tools.
type loopy struct{ n int }

func (l *loopy) Next(ctx context.Context, body []byte) (request.Message, error) {
	l.n++
	return request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{
		{ID: "c" + strings.Repeat("x", l.n), Name: "Read", Arguments: []byte(`{"path":"a"}`)}}}, nil
}

func TestLoopIsBounded(t *testing.T) {
	l := &loopy{}
	err := run(&bytes.Buffer{}, l)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no answer after")
	assert.Equal(t, maxTurns, l.n)
}

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// recordRun plays a conversation on p — steady, then a model switch, then
// a steady turn, a pause past the cache's lifetime (OpenAI reports no
// cache write: the request after a miss reads nothing to compare with) — with replytest replies whose usage
// is simulated from the bodies, and writes it as a recorded run.
func recordRun(t *testing.T, p request.Provider) string {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file. " + strings.Repeat("It reports errors plainly. ", 20),
		RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}))
	newSession := func(model string) *request.Session {
		s, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: p, Model: model,
			System: strings.Repeat("Answer briefly. ", 400), Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`256`)}})
		require.NoError(t, err)
		return s
	}
	s := newSession("m-1")
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var recs []runRecord
	var prev []byte
	var history, pending []request.Message
	for i, minutes := range []float64{0, 1, 1, 1, 1, 9, 1} {
		if i == 3 { // the model switch: a new session resends the messages
			history = s.Messages()
			s = newSession("m-2")
			pending = append(history, pending...)
			prev = nil // another model's cache
		}
		at = at.Add(time.Duration(minutes * float64(time.Minute)))
		if minutes > 5 {
			prev = nil // expired
		}
		body, err := s.BuildRequest(request.Turn{Messages: append(pending, request.Message{Role: request.RoleUser, Text: strings.Repeat("Look at the log again. ", 30)})})
		require.NoError(t, err)
		u := replytest.Simulate(p, func(s string) int { return len(s) / 4 }, prev, body, "ok")
		whole, _, err := replytest.Encode(p, i, request.Message{Role: request.RoleAssistant, Text: "ok"}, u)
		require.NoError(t, err)
		r, err := request.DecodeReply(p, whole)
		require.NoError(t, err)
		pending = []request.Message{r.Message}
		recs = append(recs, runRecord{At: at, Body: body, Reply: whole})
		prev = body
	}
	data, err := json.Marshal(recs)
	require.NoError(t, err)
	return writeFile(t, "run.json", string(data))
}

// TestMissesCommand (issue 45): toolshelf misses explains each miss of a
// recorded run from its bodies: the model switch and the expiry.
func TestMissesCommand(t *testing.T) {
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIChat} {
		run := recordRun(t, p)
		code, out, errOut := runCLI("misses", "--provider", string(p), "--ttl", "5m", run)
		require.Equal(t, exitFinding, code, errOut)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 2, out)
		assert.Contains(t, lines[0], "turn 4: ")
		assert.Contains(t, lines[0], "model changed")
		assert.Contains(t, lines[1], "turn 6: ")
		assert.Contains(t, lines[1], "expired — 9m0s since request 5 (TTL 5m0s)")

		code, out, _ = runCLI("misses", "--provider", string(p), "--ttl", "5m", "--json", run)
		assert.Equal(t, exitFinding, code)
		var js []missJSON
		require.NoError(t, json.Unmarshal([]byte(out), &js))
		require.Len(t, js, 2)
		assert.Equal(t, budget.CauseModel, js[0].Cause)
		assert.Equal(t, budget.CauseExpired, js[1].Cause)
	}
	code, _, errOut := runCLI("misses", "--provider", "anthropic", filepath.Join(t.TempDir(), "none.json"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "none.json")
}

// TestMissesCommandReadsALedger: a ledger's lines print the misses it
// explained.
func TestMissesCommandReadsALedger(t *testing.T) {
	lines := []budget.LedgerTurn{{Turn: 1}, {Turn: 2, Miss: &budget.CacheMiss{Turn: 2, Missed: 900, Cause: budget.CauseCompaction,
		Text: "turn 2: 900 tokens not read from cache — compaction declared by the harness: summary at turn 1"}}}
	for i := range lines {
		lines[i].InputTokens = 1000
	}
	data, err := json.Marshal(lines)
	require.NoError(t, err)
	code, out, errOut := runCLI("misses", writeFile(t, "ledger.json", string(data)))
	require.Equal(t, exitFinding, code, errOut)
	assert.Equal(t, lines[1].Miss.Text+"\n", out)
	none, err := json.Marshal(lines[:1])
	require.NoError(t, err)
	code, out, _ = runCLI("misses", writeFile(t, "steady.json", string(none)))
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "no cache miss\n", out)
}

// TestCheckAcceptsDiagnosticsBodies (issue 45): request --check passes
// bodies that ask for the provider's cache diagnosis.
func TestCheckAcceptsDiagnosticsBodies(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}))
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIResponses} {
		field := map[request.Provider]string{request.Anthropic: "max_tokens", request.OpenAIResponses: "max_output_tokens"}[p]
		s, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: p, Model: "m", Diagnostics: true,
			Extra: map[string]json.RawMessage{field: json.RawMessage(`256`)}})
		require.NoError(t, err)
		_, err = s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "hi"}}})
		require.NoError(t, err)
		body, err := s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleAssistant, Text: "ok", ReplyID: "resp_1"}, {Role: request.RoleUser, Text: "again"}}})
		require.NoError(t, err)
		require.Contains(t, string(body), `"resp_1"`)
		code, out, errOut := runCLI("request", "--check", "--provider", string(p), "--body", writeFile(t, "body.json", string(body)))
		assert.Equal(t, exitOK, code, "%s: %s %s", p, out, errOut)
	}
}

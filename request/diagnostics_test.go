package request_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

var allProviders = []request.Provider{request.Anthropic, request.OpenAIChat, request.OpenAIResponses, request.Gemini}

// diagConfig is a small session of provider p, with or without the
// provider's cache diagnosis.
func diagConfig(t testing.TB, p request.Provider, diagnostics bool) request.Config {
	t.Helper()
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file.",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}))
	extra := map[string]json.RawMessage{"max_tokens": json.RawMessage(`256`)}
	switch p {
	case request.OpenAIResponses:
		extra = map[string]json.RawMessage{"max_output_tokens": json.RawMessage(`256`)}
	case request.Gemini:
		extra = nil
	}
	return request.Config{Snapshot: reg.Snapshot(), Provider: p, Model: "m-1", System: "Be brief.", Extra: extra, Diagnostics: diagnostics}
}

// TestReplyCarriesResponseID (issue 45): the provider's response id is on
// the reply and on its message, whole and streamed, on all four providers.
func TestReplyCarriesResponseID(t *testing.T) {
	want := map[request.Provider]string{
		request.Anthropic: "msg_replytest_07", request.OpenAIChat: "chatcmpl-replytest-07",
		request.OpenAIResponses: "resp_replytest_07", request.Gemini: "replytest-07",
	}
	for _, p := range allProviders {
		t.Run(string(p), func(t *testing.T) {
			m := request.Message{Role: request.RoleAssistant, Text: "Reading it.", ToolCalls: []request.ToolCall{{ID: "call_1", Name: "Read", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}
			whole, stream, err := replytest.Encode(p, 7, m, request.Usage{InputTokens: 100, OutputTokens: 5})
			require.NoError(t, err)
			w, err := request.DecodeReply(p, whole)
			require.NoError(t, err)
			s, err := request.DecodeStream(p, bytes.NewReader(stream))
			require.NoError(t, err)
			require.Contains(t, string(whole), want[p], "the id replytest sends")
			assert.Equal(t, want[p], w.ID)
			assert.Equal(t, want[p], w.Message.ReplyID)
			assert.Equal(t, want[p], s.ID, "streamed")
			assert.Equal(t, want[p], s.Message.ReplyID, "streamed")
		})
	}
}

// TestDiagnosisDecoded: the provider's diagnosis reaches Usage.Diagnosis,
// whole and streamed (Anthropic on message_start), from replytest's
// bodies; a null reason is a diagnosis without a reason; none sent, nil.
func TestDiagnosisDecoded(t *testing.T) {
	m := request.Message{Role: request.RoleAssistant, Text: "Done."}
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIResponses} {
		for _, d := range []*request.CacheDiagnosis{
			{Reason: "tools_changed", MissedTokens: 11480},
			{Reason: "model_changed", MissedTokens: 900},
			{Reason: "unavailable"},
			nil,
		} {
			whole, stream, err := replytest.Encode(p, 2, m, request.Usage{InputTokens: 20000, CacheReadTokens: 8000, Diagnosis: d})
			require.NoError(t, err)
			w, err := request.DecodeReply(p, whole)
			require.NoError(t, err)
			s, err := request.DecodeStream(p, bytes.NewReader(stream))
			require.NoError(t, err)
			assert.Equal(t, d, w.Usage.Diagnosis, "%s whole %+v", p, d)
			assert.Equal(t, d, s.Usage.Diagnosis, "%s streamed %+v", p, d)
		}
	}
	// Anthropic: a reason of null (no divergence, or still running).
	body := `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1},"diagnostics":{"cache_miss_reason":null}}`
	r, err := request.DecodeReply(request.Anthropic, []byte(body))
	require.NoError(t, err)
	require.NotNil(t, r.Usage.Diagnosis)
	assert.Empty(t, r.Usage.Diagnosis.Reason)
	// A negative count is refused; an endless reason is cut.
	bad := strings.Replace(body, `null}`, `{"type":"tools_changed","cache_missed_input_tokens":-1}}`, 1)
	_, err = request.DecodeReply(request.Anthropic, []byte(bad))
	assert.ErrorIs(t, err, request.ErrReply)
	long := strings.Replace(body, `null}`, `{"type":"`+strings.Repeat("x", 10000)+`"}}`, 1)
	r, err = request.DecodeReply(request.Anthropic, []byte(long))
	require.NoError(t, err)
	assert.Len(t, r.Usage.Diagnosis.Reason, 64)
	// Responses: the types other than cache_miss are their own reason.
	resp := `{"id":"resp_1","status":"completed","output":[],"usage":{"input_tokens":3,"output_tokens":1},"prompt_cache_diagnostics":{"type":"comparison_response_not_found"}}`
	r, err = request.DecodeReply(request.OpenAIResponses, []byte(resp))
	require.NoError(t, err)
	assert.Equal(t, &request.CacheDiagnosis{Reason: "comparison_response_not_found"}, r.Usage.Diagnosis)
}

// diagTurns plays three turns whose assistant replies come from
// replytest, and returns the bodies.
func diagTurns(t *testing.T, s *request.Session, p request.Provider, from, n int) [][]byte {
	t.Helper()
	var bodies [][]byte
	var pending []request.Message
	for i := from; i < from+n; i++ {
		body, err := s.BuildRequest(request.Turn{Messages: append(pending, request.Message{Role: request.RoleUser, Text: "question " + string(rune('A'+i))})})
		require.NoError(t, err)
		bodies = append(bodies, body)
		whole, _, err := replytest.Encode(p, i, request.Message{Role: request.RoleAssistant, Text: "answer"}, request.Usage{InputTokens: 10})
		require.NoError(t, err)
		r, err := request.DecodeReply(p, whole)
		require.NoError(t, err)
		pending = []request.Message{r.Message}
	}
	return bodies
}

// TestDiagnosticsInBody (issue 45): with Config.Diagnostics each request
// names the previous reply, after the messages; the rest of the body is
// byte for byte the body without the option (whose goldens under
// testdata stay as they are), and it passes the provider rule book.
func TestDiagnosticsInBody(t *testing.T) {
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIResponses} {
		t.Run(string(p), func(t *testing.T) {
			on, err := request.NewSession(diagConfig(t, p, true))
			require.NoError(t, err)
			off, err := request.NewSession(diagConfig(t, p, false))
			require.NoError(t, err)
			with, without := diagTurns(t, on, p, 1, 3), diagTurns(t, off, p, 1, 3)
			for i := range with {
				requesttest.CheckProviderRules(t, p, with[i])
				var field string
				switch {
				case p == request.Anthropic && i == 0:
					field = `,"diagnostics":{"previous_message_id":null}`
				case p == request.Anthropic:
					field = `,"diagnostics":{"previous_message_id":"msg_replytest_0` + string(rune('0'+i)) + `"}`
				case i > 0:
					field = `,"prompt_cache_options":{"comparison_response_id":"resp_replytest_0` + string(rune('0'+i)) + `"}`
				}
				require.True(t, bytes.HasSuffix(with[i], []byte(field+"}")), "turn %d: %s", i+1, with[i][max(0, len(with[i])-120):])
				assert.Equal(t, string(without[i]), string(with[i][:len(with[i])-len(field)-1])+"}", "turn %d: the rest is the body without diagnostics", i+1)
			}
			assert.Equal(t, 3, on.ChangeLog().Requests)
			if p == request.Anthropic {
				assert.Equal(t, "msg_replytest_02", on.ChangeLog().Last.Compared)
			}
		})
	}
	for _, p := range []request.Provider{request.OpenAIChat, request.Gemini} {
		_, err := request.NewSession(diagConfig(t, p, true))
		assert.ErrorIs(t, err, request.ErrConfig, "%s has no diagnosis", p)
	}
	cfg := diagConfig(t, request.Anthropic, true)
	cfg.Extra["diagnostics"] = json.RawMessage(`{}`)
	_, err := request.NewSession(cfg)
	assert.ErrorIs(t, err, request.ErrConfig, "the session writes the field itself")
}

// TestDiagnosticsReplica (issue 45): a replica that restores the session —
// from MarshalState, from a state saved before the id was kept, or from a
// Store's records — names the same previous reply.
func TestDiagnosticsReplica(t *testing.T) {
	p := request.Anthropic
	cfg := diagConfig(t, p, true)
	s, err := request.NewSession(cfg)
	require.NoError(t, err)
	diagTurns(t, s, p, 1, 2)
	// The reply to turn 2 comes back in turn 3, built by a replica.
	whole, _, err := replytest.Encode(p, 2, request.Message{Role: request.RoleAssistant, Text: "answer"}, request.Usage{InputTokens: 10})
	require.NoError(t, err)
	r, err := request.DecodeReply(p, whole)
	require.NoError(t, err)
	next := request.Turn{Messages: []request.Message{r.Message, {Role: request.RoleUser, Text: "go on"}}}
	wantNext, err := s.BuildRequest(next)
	require.NoError(t, err)
	require.Contains(t, string(wantNext), `"previous_message_id":"msg_replytest_02"`)

	s2, err := request.NewSession(cfg)
	require.NoError(t, err)
	diagTurns(t, s2, p, 1, 2)
	saved, err := s2.MarshalState()
	require.NoError(t, err)
	require.Contains(t, string(saved), `"previous_reply_id":"msg_replytest_01"`)
	replica, err := request.RestoreSession(cfg, saved, nil)
	require.NoError(t, err)
	got, err := replica.BuildRequest(next)
	require.NoError(t, err)
	assert.Equal(t, string(wantNext), string(got), "restored from MarshalState")

	// A state saved before previous_reply_id was kept: the last message's
	// reply_id is the one.
	var st map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(saved, &st))
	delete(st, "previous_reply_id")
	old, err := json.Marshal(st)
	require.NoError(t, err)
	replica, err = request.RestoreSession(cfg, old, nil)
	require.NoError(t, err)
	got, err = replica.BuildRequest(next)
	require.NoError(t, err)
	assert.Equal(t, string(wantNext), string(got), "restored from an older state")

	// A damaged id is refused, as any stored state.
	st["previous_reply_id"] = json.RawMessage(`"a\u0000b"`)
	bad, err := json.Marshal(st)
	require.NoError(t, err)
	_, err = request.RestoreSession(cfg, bad, nil)
	assert.ErrorIs(t, err, request.ErrState)

	// A Store's records: a delta record carries the id.
	store := &request.MemoryStore{}
	c, err := request.OpenConversation(context.Background(), store, "c1", cfg, nil)
	require.NoError(t, err)
	diagTurns(t, c.Session(), p, 1, 2)
	require.NoError(t, c.Commit(context.Background(), "t2"))
	c2, err := request.OpenConversation(context.Background(), store, "c1", cfg, nil)
	require.NoError(t, err)
	got, err = c2.Session().BuildRequest(next)
	require.NoError(t, err)
	assert.Equal(t, string(wantNext), string(got), "opened from a Store")
}

// TestChangeLogRecords (issue 45): the session logs its view changes,
// arrivals, updates and removals, and the harness's declarations, each
// with the turn it follows and whether it moved the prefix; the clock
// times each request.
func TestChangeLogRecords(t *testing.T) {
	cfg := diagConfig(t, request.Anthropic, false)
	clock := &fakeClock{}
	cfg.Clock = clock.now
	s, err := request.NewSession(cfg)
	require.NoError(t, err)
	diagTurns(t, s, request.Anthropic, 1, 2)
	require.NoError(t, s.Declare(request.ChangeCompaction, "summarised turns 1-2"))
	err = s.Declare(request.ChangeView, "x")
	assert.ErrorIs(t, err, request.ErrConfig)
	assert.True(t, errors.Is(s.Declare(request.ChangeModel, "\xff"), request.ErrConfig))
	log := s.ChangeLog()
	require.Len(t, log.Changes, 1)
	assert.Equal(t, request.Change{Turn: 2, Kind: request.ChangeCompaction, Detail: "summarised turns 1-2", Prefix: true}, log.Changes[0])
	assert.Equal(t, 2, log.Last.Turn)
	assert.Equal(t, clock.t, log.Last.At)
	assert.Equal(t, "m-1", log.Last.Model)
	assert.Len(t, log.Last.Prefix, 64)
}

// fakeClock advances a minute each time it is read.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time {
	if c.t.IsZero() {
		c.t = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	}
	c.t = c.t.Add(time.Minute)
	return c.t
}

// TestDiagnosticsUnknownReply: an assistant message the harness built
// (no ReplyID), or one whose id cannot be sent back, leaves the previous
// reply unknown: Anthropic compares with nothing (null), the Responses
// API is not asked.
func TestDiagnosticsUnknownReply(t *testing.T) {
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIResponses} {
		s, err := request.NewSession(diagConfig(t, p, true))
		require.NoError(t, err)
		diagTurns(t, s, p, 1, 2)
		for _, id := range []string{"", "bad\nid"} {
			body, err := s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleAssistant, Text: "mine", ReplyID: id}, {Role: request.RoleUser, Text: "next"}}})
			require.NoError(t, err)
			if p == request.Anthropic {
				assert.True(t, bytes.HasSuffix(body, []byte(`,"diagnostics":{"previous_message_id":null}}`)), "%q", id)
			} else {
				assert.NotContains(t, string(body), "prompt_cache_options", "%q", id)
			}
		}
	}
}

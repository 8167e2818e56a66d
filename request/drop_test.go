package request

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
)

// A session that dropped its messages builds the same bodies as one that
// keeps them, turn after turn, and saves a state that restores an
// identical session, in another "process".
func TestDropMessagesKeepsBytes(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
			keep, err := NewSession(testConfig(reg.Snapshot(), p, githubPolicy(), nil))
			require.NoError(t, err)
			dropCfg := testConfig(reg.Snapshot(), p, githubPolicy(), nil)
			dropCfg.DropMessages = true
			drop, err := NewSession(dropCfg)
			require.NoError(t, err)
			turns := script()
			for i, tr := range turns[:3] {
				want, err := keep.BuildRequest(tr)
				require.NoError(t, err)
				got, err := drop.AppendRequest(nil, tr)
				require.NoError(t, err)
				require.Nil(t, wire.Diff(want, got), "turn %d", i)
			}
			assert.Nil(t, drop.Messages())
			assert.Len(t, keep.Messages(), 7)
			require.NoError(t, drop.RegisterSelfBuilt(registry.Tool{Name: "mine", Description: "Mine."}))
			require.NoError(t, keep.RegisterSelfBuilt(registry.Tool{Name: "mine", Description: "Mine."}))

			st, err := drop.MarshalState()
			require.NoError(t, err)
			assert.Contains(t, string(st), `"version":4`)
			assert.NotContains(t, string(st), `"messages"`)
			reg2, _ := loadCatalogs(t, 7, harnessFile, githubFile)
			r, err := RestoreSession(testConfig(reg2.Snapshot(), p, githubPolicy(), nil), st, nil)
			require.NoError(t, err)
			// The restored session knows where the conversation stands: a
			// tool result for a call it never saw is refused.
			_, err = r.BuildRequest(Turn{Messages: []Message{result("call_404", "x")}})
			require.ErrorIs(t, err, ErrSequence)
			next := Turn{Messages: []Message{call("call_9", "Read", `{"file_path":"a"}`), result("call_9", "contents"), {Role: RoleAssistant, Text: "Read it."}, userMsg("ok")}}
			want, err := keep.BuildRequest(next)
			require.NoError(t, err)
			got, err := r.BuildRequest(next)
			require.NoError(t, err)
			assert.Nil(t, wire.Diff(want, got))
			again, err := r.MarshalState()
			require.NoError(t, err)
			assert.Contains(t, string(again), `"version":4`, "a restored session stays dropped")

			// Another provider cannot resend these bytes.
			other := OpenAIChat
			if p == OpenAIChat {
				other = Anthropic
			}
			_, err = RestoreSession(testConfig(reg2.Snapshot(), other, githubPolicy(), nil), st, nil)
			require.ErrorIs(t, err, ErrState)
		})
	}
}

// Damaged saved states are refused with ErrState, never a panic or a
// session that would send broken JSON.
func TestRestoreEncodedRejectsDamage(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
	cfg := testConfig(reg.Snapshot(), Anthropic, githubPolicy(), nil)
	s, err := NewSession(cfg)
	require.NoError(t, err)
	s.DropMessages()
	_, err = s.BuildRequest(script()[0])
	require.NoError(t, err)
	st, err := s.MarshalState()
	require.NoError(t, err)
	var good map[string]any
	require.NoError(t, json.Unmarshal(st, &good))
	edit := func(f func(e map[string]any, all map[string]any)) []byte {
		var all map[string]any
		require.NoError(t, json.Unmarshal(st, &all))
		f(all["encoded_history"].(map[string]any), all)
		b, err := json.Marshal(all)
		require.NoError(t, err)
		return b
	}
	for name, bad := range map[string][]byte{
		"cut body":        edit(func(e, _ map[string]any) { e["body"] = e["body"].(string)[:20] }),
		"not anthropic":   edit(func(e, _ map[string]any) { e["body"] = `{"role":"user","content":"x"}` }),
		"count":           edit(func(e, _ map[string]any) { e["count"] = 0 }),
		"negative":        edit(func(e, _ map[string]any) { e["count"] = -1 }),
		"role":            edit(func(e, _ map[string]any) { e["last_role"] = "system" }),
		"pending":         edit(func(e, _ map[string]any) { e["pending_calls"] = []string{""} }),
		"version 3":       edit(func(_, all map[string]any) { all["version"] = 3 }),
		"with messages":   edit(func(_, all map[string]any) { all["messages"] = []any{map[string]any{"role": "user", "text": "x"}} }),
		"provider":        edit(func(e, _ map[string]any) { e["provider"] = "openai-chat" }),
		"array":           edit(func(e, _ map[string]any) { e["body"] = `[1]` }),
		"two values, odd": edit(func(e, _ map[string]any) { e["body"] = `{"a":1},{"b":[}]}` }),
	} {
		t.Run(name, func(t *testing.T) {
			var r *Session
			require.NotPanics(t, func() { r, err = RestoreSession(cfg, bad, nil) })
			require.ErrorIs(t, err, ErrState)
			assert.Nil(t, r)
		})
	}
}

// Dropping messages is what brings a session's own memory near its
// encoded history: the session keeps the bytes it must resend and not a
// second copy of every text.
func TestDropMessagesMemory(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
	cache := NewCache()
	measure := func(drop bool) (perSession, history float64) {
		const n = 30
		sessions := make([]*Session, n)
		var buf []byte
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range sessions {
			s, err := NewSession(testConfig(reg.Snapshot(), OpenAIChat, githubPolicy(), cache))
			require.NoError(t, err)
			if drop {
				s.DropMessages()
			}
			// Fresh strings per session, as a harness decoding replies
			// has; one turn per question, call, result and answer.
			msgs := benchHistory()
			for i := range msgs {
				msgs[i].Text = string([]byte(msgs[i].Text))
			}
			for i := 0; i < len(msgs); i += 4 {
				var err error
				buf, err = s.AppendRequest(buf[:0], Turn{Messages: msgs[i : i+4]})
				require.NoError(t, err)
			}
			sessions[i] = s
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(sessions)
		return float64(after.HeapAlloc-before.HeapAlloc) / n, float64(len(sessions[0].hist.buf))
	}
	measure(false) // freeze the shared prefix outside the measurement
	keep, h := measure(false)
	drop, _ := measure(true)
	t.Logf("history %.0f B; session keeping messages %.0f B (%.2fx), dropping them %.0f B (%.2fx)", h, keep, keep/h, drop, drop/h)
	assert.LessOrEqual(t, drop/h, 1.3)
	assert.Greater(t, keep/h, 1.6, "keeping messages holds a second copy of the texts")
}

// FuzzRestoreState feeds damaged saved states, of both versions, to
// RestoreSession: it never panics, and a session it accepts builds valid
// JSON or reports an error.
func FuzzRestoreState(f *testing.F) {
	reg, _ := loadCatalogs(f, 0, harnessFile)
	cfg := testConfig(reg.Snapshot(), Anthropic, nil, nil)
	for _, drop := range []bool{false, true} {
		s, err := NewSession(cfg)
		require.NoError(f, err)
		if drop {
			s.DropMessages()
		}
		for _, tr := range script()[:3] {
			_, err := s.BuildRequest(tr)
			require.NoError(f, err)
		}
		st, err := s.MarshalState()
		require.NoError(f, err)
		f.Add(st)
	}
	f.Add([]byte(`{"version":4,"encoded_history":{"provider":"anthropic","body":"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}","count":1,"last_role":"user"}}`))
	f.Fuzz(func(t *testing.T, saved []byte) {
		s, err := RestoreSession(cfg, saved, nil)
		if err != nil {
			require.ErrorIs(t, err, ErrState)
			return
		}
		for _, tr := range []Turn{{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("next")}}, {Messages: []Message{userMsg("next")}}} {
			body, err := s.BuildRequest(tr)
			if err != nil {
				continue
			}
			require.True(t, json.Valid(body), "%s", body)
			return
		}
	})
}

// A Conversation stores the session's messages: a session that dropped
// them cannot be committed, and says so, rather than store records that
// could not be replayed.
func TestConversationRefusesDroppedMessages(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile)
	c, err := OpenConversation(t.Context(), &MemoryStore{}, "c1", testConfig(reg.Snapshot(), Anthropic, nil, nil), nil)
	require.NoError(t, err)
	_, err = c.Session().BuildRequest(script()[0])
	require.NoError(t, err)
	require.NoError(t, c.Commit(t.Context(), "t1"))
	c.Session().DropMessages()
	_, err = c.Session().BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("next")}})
	require.NoError(t, err)
	err = c.Commit(t.Context(), "t2")
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "DropMessages")

	// Config.DropMessages is refused at open.
	cfg := testConfig(reg.Snapshot(), Anthropic, nil, nil)
	cfg.DropMessages = true
	_, err = OpenConversation(t.Context(), &MemoryStore{}, "c2", cfg, nil)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "DropMessages")
}

// RestoreSession with Config.DropMessages restores a session saved with
// its messages, then drops them: the same bytes, no messages kept.
func TestRestoreWithDropMessages(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
	cfg := testConfig(reg.Snapshot(), Anthropic, githubPolicy(), nil)
	keep, err := NewSession(cfg)
	require.NoError(t, err)
	turns := script()
	for _, tr := range turns[:2] {
		_, err := keep.BuildRequest(tr)
		require.NoError(t, err)
	}
	st, err := keep.MarshalState()
	require.NoError(t, err)
	dropCfg := cfg
	dropCfg.DropMessages = true
	r, err := RestoreSession(dropCfg, st, nil)
	require.NoError(t, err)
	assert.Nil(t, r.Messages())
	want, err := keep.BuildRequest(turns[2])
	require.NoError(t, err)
	got, err := r.BuildRequest(turns[2])
	require.NoError(t, err)
	assert.Nil(t, wire.Diff(want, got))
}

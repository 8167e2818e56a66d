package request

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptSession runs script() on a new session of p.
func scriptSession(t *testing.T, p Provider, mut func(*Config)) (*Session, Config) {
	t.Helper()
	reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
	cfg := testConfig(reg.Snapshot(), p, githubPolicy(), nil)
	if mut != nil {
		mut(&cfg)
	}
	s, err := NewSession(cfg)
	require.NoError(t, err)
	for _, tr := range script() {
		_, err := s.BuildRequest(tr)
		require.NoError(t, err)
	}
	return s, cfg
}

// editState decodes saved state, lets edit change it, and encodes it.
func editState(t *testing.T, saved []byte, edit func(st *state)) []byte {
	t.Helper()
	var st state
	require.NoError(t, json.Unmarshal(saved, &st))
	edit(&st)
	out, err := json.Marshal(st)
	require.NoError(t, err)
	return out
}

var nextTurn = Turn{Messages: []Message{{Role: RoleAssistant, Text: "Anything else?"}, userMsg("no")}}

// TestSendCheckRefusesEdits: a session restored from state whose history
// was edited or lost a message refuses to build, naming the first part
// that differs (provider JSON path) — on every provider, for state that
// keeps messages and for an encoded history (Config.DropMessages). An
// unedited restore builds; a declared rewrite builds, and becomes the new
// base a later restore checks against.
func TestSendCheckRefusesEdits(t *testing.T) {
	edited := map[Provider]string{
		OpenAIChat:      "messages[2].content differs from what was sent",
		OpenAIResponses: "input[1].content differs from what was sent",
		Anthropic:       "messages[1].content[0] differs from what was sent",
		Gemini:          "contents[1].parts[0] differs from what was sent",
	}
	dropped := map[Provider]string{
		OpenAIChat:      "messages[9] was sent and is missing",
		OpenAIResponses: "input[10] was sent and is missing",
		Anthropic:       "messages[6] was sent and is missing",
		Gemini:          "contents[6] was sent and is missing",
	}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s, cfg := scriptSession(t, p, nil)
			saved, err := s.MarshalState()
			require.NoError(t, err)

			same, err := RestoreSession(cfg, saved, nil)
			require.NoError(t, err)
			_, err = same.BuildRequest(nextTurn)
			require.NoError(t, err, "an unedited restore builds")

			ed := editState(t, saved, func(st *state) { st.Messages[1].Text = "Searching, edited." })
			r, err := RestoreSession(cfg, ed, nil)
			require.NoError(t, err)
			_, err = r.BuildRequest(nextTurn)
			require.ErrorIs(t, err, ErrEdited)
			assert.Contains(t, err.Error(), edited[p])
			_, err = r.BuildRequest(nextTurn)
			require.ErrorIs(t, err, ErrEdited, "refused until declared")

			r.DeclareRewrite()
			_, err = r.BuildRequest(nextTurn)
			require.NoError(t, err, "a declared rewrite builds")
			again, err := r.MarshalState()
			require.NoError(t, err)
			r2, err := RestoreSession(cfg, again, nil)
			require.NoError(t, err)
			_, err = r2.BuildRequest(nextTurn)
			require.NoError(t, err, "the rewrite is the new base")

			dr := editState(t, saved, func(st *state) { st.Messages = st.Messages[:len(st.Messages)-1] })
			r, err = RestoreSession(cfg, dr, nil)
			require.NoError(t, err)
			_, err = r.BuildRequest(Turn{Messages: []Message{userMsg("no")}})
			require.ErrorIs(t, err, ErrEdited)
			assert.Contains(t, err.Error(), dropped[p])
		})
	}
}

// TestSendCheckEncodedHistory: the same for a session that dropped its
// messages (its state holds the encoded history, which the harness's
// store may damage).
func TestSendCheckEncodedHistory(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s, cfg := scriptSession(t, p, func(c *Config) { c.DropMessages = true })
			saved, err := s.MarshalState()
			require.NoError(t, err)
			ed := editState(t, saved, func(st *state) {
				require.Contains(t, st.Encoded.Body, "Searching for the tools first.")
				st.Encoded.Body = strings.Replace(st.Encoded.Body, "Searching for the tools first.", "Searching for tools, edited.", 1)
			})
			r, err := RestoreSession(cfg, ed, nil)
			require.NoError(t, err)
			_, err = r.BuildRequest(nextTurn)
			require.ErrorIs(t, err, ErrEdited)
			assert.Contains(t, err.Error(), "differs from what was sent")
		})
	}
}

// TestSendCheckPrefix: a restore whose Config builds another prefix (a
// new system prompt) is refused, naming the member of the prefix, until
// the harness declares the restart.
func TestSendCheckPrefix(t *testing.T) {
	want := map[Provider]string{
		OpenAIChat:      "the prefix changed: messages[0] differs",
		OpenAIResponses: "the prefix changed: instructions differs",
		Anthropic:       "the prefix changed: system[0] differs",
		Gemini:          "the prefix changed: systemInstruction differs",
	}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s, cfg := scriptSession(t, p, nil)
			saved, err := s.MarshalState()
			require.NoError(t, err)
			cfg.System = "You are a careful coding agent."
			r, err := RestoreSession(cfg, saved, nil)
			require.NoError(t, err)
			_, err = r.BuildRequest(nextTurn)
			require.ErrorIs(t, err, ErrEdited)
			assert.Contains(t, err.Error(), want[p])
			r.DeclareRewrite()
			_, err = r.BuildRequest(nextTurn)
			require.NoError(t, err)
		})
	}
}

// TestSendCheckStore: a conversation served by a Store carries the chain
// of its prefix from its first record: a second replica whose Config
// builds another prefix is refused until it declares the restart; its
// next commit stores the new chain, which a third replica with the same
// Config accepts and one with the old Config refuses.
func TestSendCheckStore(t *testing.T) {
	ctx := context.Background()
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
			cfg := testConfig(reg.Snapshot(), p, githubPolicy(), nil)
			store := &MemoryStore{}
			c, err := OpenConversation(ctx, store, "c", cfg, nil)
			require.NoError(t, err)
			for i, tr := range script() {
				_, err := c.Session().BuildRequest(tr)
				require.NoError(t, err)
				require.NoError(t, c.Commit(ctx, string(rune('a'+i))))
			}
			same, err := OpenConversation(ctx, store, "c", cfg, nil)
			require.NoError(t, err)
			_, err = same.Session().BuildRequest(nextTurn)
			require.NoError(t, err, "the same Config on another replica builds")

			other := cfg
			other.System = "You are a careful coding agent."
			o, err := OpenConversation(ctx, store, "c", other, nil)
			require.NoError(t, err)
			_, err = o.Session().BuildRequest(nextTurn)
			require.ErrorIs(t, err, ErrEdited)
			o.Session().DeclareRewrite()
			_, err = o.Session().BuildRequest(nextTurn)
			require.NoError(t, err)
			require.NoError(t, o.Commit(ctx, "rewritten"))

			third, err := OpenConversation(ctx, store, "c", other, nil)
			require.NoError(t, err)
			_, err = third.Session().BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go")}})
			require.NoError(t, err, "the declared prefix is the stored one now")
			old, err := OpenConversation(ctx, store, "c", cfg, nil)
			require.NoError(t, err)
			_, err = old.Session().BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go")}})
			require.ErrorIs(t, err, ErrEdited)
		})
	}
}

// TestSendCheckForgedChain: a chain read back from stored state is data:
// one out of all proportion to the body it describes, or with parts that
// are not digests, is refused as state; a chain that claims other
// digests only refuses its own conversation's next body.
func TestSendCheckForgedChain(t *testing.T) {
	s, cfg := scriptSession(t, Anthropic, nil)
	saved, err := s.MarshalState()
	require.NoError(t, err)
	huge := editState(t, saved, func(st *state) {
		st.Sent.Prefix = make([]string, 1_000_000)
		for i := range st.Sent.Prefix {
			st.Sent.Prefix[i] = "x=0"
		}
	})
	_, err = RestoreSession(cfg, huge, nil)
	require.ErrorIs(t, err, ErrState)
	bad := editState(t, saved, func(st *state) { st.Sent.Prefix[0] = "no digest" })
	_, err = RestoreSession(cfg, bad, nil)
	require.ErrorIs(t, err, ErrState)
	other := editState(t, saved, func(st *state) { st.Sent.Prefix[0] = "model=0000000000000000" })
	r, err := RestoreSession(cfg, other, nil)
	require.NoError(t, err)
	_, err = r.BuildRequest(nextTurn)
	require.ErrorIs(t, err, ErrEdited)
}

// TestViewChangeSteadyTurnAllocs: after a view change that narrows
// tools[] natively, a steady turn into a reused buffer still allocates
// nothing: the narrowing is built once, by SetView.
func TestViewChangeSteadyTurnAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s := viewSession(t, p, vcAgent)
			_, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			require.NoError(t, s.SetView(vcAsk))
			_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go")}})
			require.NoError(t, err)
			turn := Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("more")}}
			base := s.hist.mark()
			buf, err := s.AppendRequest(nil, turn)
			require.NoError(t, err)
			s.hist.rewind(base)
			allocs := testing.AllocsPerRun(20, func() {
				if buf, err = s.AppendRequest(buf[:0], turn); err != nil {
					t.Fatal(err)
				}
				s.hist.rewind(base)
			})
			assert.Zero(t, allocs)
		})
	}
}

// BenchmarkSendChain measures what the send check adds to saving a
// session: MarshalState of a 200-message session with and without the
// digest chain (chainOf alone), and the restore's comparison. Read the
// ratios, not the times (the machine is shared).
func BenchmarkSendChain(b *testing.B) {
	reg, _ := loadCatalogs(b, 0, harnessFile, githubFile)
	s, err := NewSession(testConfig(reg.Snapshot(), Anthropic, githubPolicy(), nil))
	require.NoError(b, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("start")}})
	require.NoError(b, err)
	for i := range 100 {
		_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: strings.Repeat("word ", 40+i%20)}, userMsg("next")}})
		require.NoError(b, err)
	}
	saved, err := s.MarshalState()
	require.NoError(b, err)
	b.Run("MarshalState", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = s.MarshalState()
		}
	})
	b.Run("chain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = chainOf(s.frozen.sent(), s.hist.buf)
		}
	})
	b.Run("RestoreSession", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = RestoreSession(s.cfg, saved, nil)
		}
	})
}

package budget_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// fakeProvider plays a provider's prompt cache over the request bodies it
// receives: the cache read is the tokens of the bytes a body shares with
// the previous one (replytest.Simulate), nothing once the entry expired
// (ttl) or was evicted; and, asked for a diagnosis, it compares the body
// with the request of the reply it names, as the providers document:
// model, then system, then tools, then whether the earlier messages were
// only appended to.
type fakeProvider struct {
	p       request.Provider
	ttl     time.Duration
	clock   *clock
	prev    []byte
	prevAt  time.Time
	bodies  map[string][]byte // reply id → the request it answered
	n       int
	model   string // the model of the previous request (Gemini names it in the URL)
	evict   bool   // the next request finds the cache empty
	diagAny string // the next diagnosis says this instead ("unavailable")
}

func tokens(s string) int { return len(s) / 4 }

// send answers body with a text reply and its usage.
func (f *fakeProvider) send(t *testing.T, model string, body []byte) request.Reply {
	t.Helper()
	f.n++
	now := f.clock.t
	prev := f.prev
	if prev != nil && (now.Sub(f.prevAt) > f.ttl || f.evict || model != f.model) {
		prev = nil // expired, evicted, or another model's cache: nothing to read
	}
	f.model = model
	u := replytest.Simulate(f.p, tokens, prev, body, "ok")
	if prev == nil && f.prev != nil && f.p == request.Anthropic {
		u.CacheWriteTokens, u.CacheReadTokens = u.InputTokens, 0
	}
	u.Diagnosis = f.diagnose(t, body)
	f.evict, f.diagAny = false, ""
	whole, _, err := replytest.Encode(f.p, f.n, request.Message{Role: request.RoleAssistant, Text: "ok"}, u)
	require.NoError(t, err)
	r, err := request.DecodeReply(f.p, whole)
	require.NoError(t, err)
	f.bodies[r.ID] = body
	f.prev, f.prevAt = body, now
	return r
}

// diagnose compares body with the request its diagnostics field names.
func (f *fakeProvider) diagnose(t *testing.T, body []byte) *request.CacheDiagnosis {
	var b map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &b))
	var named string
	switch f.p {
	case request.Anthropic:
		var d struct {
			Prev *string `json:"previous_message_id"`
		}
		if b["diagnostics"] == nil {
			return nil
		}
		require.NoError(t, json.Unmarshal(b["diagnostics"], &d))
		if d.Prev == nil {
			return &request.CacheDiagnosis{}
		}
		named = *d.Prev
	case request.OpenAIResponses:
		var d struct {
			ID string `json:"comparison_response_id"`
		}
		if b["prompt_cache_options"] == nil {
			return nil
		}
		require.NoError(t, json.Unmarshal(b["prompt_cache_options"], &d))
		named = d.ID
	default:
		return nil
	}
	if f.diagAny != "" {
		return &request.CacheDiagnosis{Reason: f.diagAny}
	}
	old, ok := f.bodies[named]
	if !ok {
		if f.p == request.Anthropic {
			return &request.CacheDiagnosis{Reason: "previous_message_not_found"}
		}
		return &request.CacheDiagnosis{Reason: "comparison_response_not_found"}
	}
	var a map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(old, &a))
	missed := tokens(string(body)) // approximate, as the providers say
	miss := func(reason string) *request.CacheDiagnosis {
		return &request.CacheDiagnosis{Reason: reason, MissedTokens: missed}
	}
	msgs, system := "messages", "system"
	if f.p == request.OpenAIResponses {
		msgs, system = "input", "instructions"
	}
	switch {
	case !bytes.Equal(a["model"], b["model"]):
		return miss("model_changed")
	case !bytes.Equal(a[system], b[system]) && f.p == request.Anthropic:
		return miss("system_changed")
	case !bytes.Equal(a["tools"], b["tools"]):
		return miss("tools_changed")
	case !bytes.Equal(a[system], b[system]):
		return miss("input_changed")
	}
	var am, bm []any
	require.NoError(t, json.Unmarshal(a[msgs], &am))
	require.NoError(t, json.Unmarshal(b[msgs], &bm))
	if len(bm) < len(am) {
		return miss(map[request.Provider]string{request.Anthropic: "messages_changed", request.OpenAIResponses: "input_changed"}[f.p])
	}
	for i := range am {
		// Anthropic's breakpoint moves to the newest block: it is not part
		// of what the cache compares.
		if !reflect.DeepEqual(stripCache(am[i]), stripCache(bm[i])) && i < len(am)-1 {
			return miss(map[request.Provider]string{request.Anthropic: "messages_changed", request.OpenAIResponses: "input_changed"}[f.p])
		}
	}
	if f.p == request.OpenAIResponses {
		return &request.CacheDiagnosis{Reason: "cache_hit"}
	}
	return &request.CacheDiagnosis{} // no divergence
}

func stripCache(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k != "cache_control" {
				out[k] = stripCache(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripCache(e)
		}
		return out
	}
	return v
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// recorder is an Observer that keeps the cache-miss events.
type recorder struct{ details, sessions []string }

func (r *recorder) Begin(ctx context.Context, _ execute.Dispatch) context.Context { return ctx }
func (r *recorder) End(context.Context, registry.Result)                          {}
func (r *recorder) Event(_ context.Context, ev execute.Event) {
	if ev.Kind == execute.EventCacheMiss {
		r.details, r.sessions = append(r.details, ev.Detail), append(r.sessions, ev.Session)
	}
}

// script is a conversation on provider p that exercises every cause, or
// none; it returns the ledger, the misses' causes by ledger line, and
// whether SetView moved the prefix.
type script struct {
	t       *testing.T
	p       request.Provider
	diag    bool
	reg     *registry.Registry
	clock   *clock
	fake    *fakeProvider
	s       *request.Session
	ledger  *budget.Ledger
	pending []request.Message
	edit    func([]byte) []byte // the harness's own edit of each body
	turn    int
	model   string
}

func newScript(t *testing.T, p request.Provider, diag bool, obs execute.Observer) *script {
	reg := registry.New(nil)
	for _, name := range []string{"Read", "Write"} {
		require.NoError(t, reg.Register(registry.Tool{Name: name, Description: name + " a file at a path the user gives; " + strings.Repeat("it reports errors plainly. ", 8),
			RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}))
	}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
		lateTool("list_dir", "List the entries of a directory."), lateTool("stat", "Show a file's size and modification time.")}))
	sc := &script{t: t, p: p, diag: diag, reg: reg, clock: &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}}
	ttl := time.Duration(0) // Anthropic: the documented 5 minutes
	if p != request.Anthropic {
		ttl = 5 * time.Minute // OpenAI in_memory retention; Gemini documents none
	}
	sc.fake = &fakeProvider{p: p, ttl: 5 * time.Minute, clock: sc.clock, bodies: map[string][]byte{}}
	sc.s = sc.session(t, "m-1")
	var err error
	sc.ledger, err = budget.FollowSession(sc.s, &budget.LedgerOptions{TTL: ttl, Observer: obs})
	require.NoError(t, err)
	return sc
}

func (sc *script) config(model string) request.Config {
	var extra map[string]json.RawMessage
	switch sc.p {
	case request.Anthropic:
		extra = map[string]json.RawMessage{"max_tokens": json.RawMessage(`1024`)}
	case request.OpenAIChat:
		extra = map[string]json.RawMessage{"max_completion_tokens": json.RawMessage(`1024`)}
	}
	return request.Config{
		ID: "script-" + model, Snapshot: sc.reg.Snapshot(), Provider: sc.p, Model: model, Extra: extra,
		System:      "You are a coding agent. " + strings.Repeat("Answer briefly and precisely. ", 20),
		Policy:      &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}},
		Pending:     []string{"late"},
		SelfBuilt:   true,
		Diagnostics: sc.diag, Clock: sc.clock.now,
	}
}

func (sc *script) session(t *testing.T, model string) *request.Session {
	sc.model = model
	cfg := sc.config(model)
	s, err := request.NewSession(cfg)
	require.NoError(t, err)
	return s
}

// step sends one user turn after the pending reply, minutes after the
// previous request, and adds the reply's usage to the ledger.
func (sc *script) step(minutes float64) budget.LedgerTurn {
	t := sc.t
	sc.turn++
	sc.clock.t = sc.clock.t.Add(time.Duration(minutes * float64(time.Minute)))
	text := fmt.Sprintf("Question %d: %s", sc.turn, strings.Repeat("please look at the build log again. ", 20))
	body, err := sc.s.BuildRequest(request.Turn{Messages: append(sc.pending, request.Message{Role: request.RoleUser, Text: text})})
	require.NoError(t, err)
	if sc.edit != nil {
		body = sc.edit(body)
	}
	r := sc.fake.send(t, sc.model, body)
	sc.pending = []request.Message{r.Message}
	return sc.ledger.Add(r.Usage)
}

// causes plays the whole script and returns each line's cause ("" for no
// miss) and whether the view change moved the prefix.
func (sc *script) play(everything bool) ([]budget.MissCause, bool) {
	t := sc.t
	var got []budget.MissCause
	add := func(l budget.LedgerTurn) {
		if l.Miss == nil {
			got = append(got, "")
			return
		}
		got = append(got, l.Miss.Cause)
	}
	add(sc.step(0)) // 1
	add(sc.step(1)) // 2: steady
	add(sc.step(1)) // 3: steady
	if !everything {
		for range 5 {
			add(sc.step(2))
		}
		return got, false
	}
	// View change.
	require.NoError(t, sc.s.SetView(deferral.View{Mode: deferral.Mode{Name: "agent", Allow: []string{"Read", "mcp__*"}}}))
	log := sc.s.ChangeLog()
	moved := log.Changes[len(log.Changes)-1].Prefix
	add(sc.step(1)) // 4
	// A late server arrives.
	require.NoError(t, sc.reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{lateTool("sum", "Add two numbers.")}))
	_, err := sc.s.Sync(context.Background(), sc.reg.Snapshot())
	require.NoError(t, err)
	add(sc.step(1)) // 5
	// A tool's definition changes; the harness approves it.
	require.NoError(t, sc.reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
		lateTool("list_dir", "List the entries of a directory."), lateTool("stat", "Show a file's size, mode and modification time.")}))
	_, err = sc.s.Sync(context.Background(), sc.reg.Snapshot())
	require.NoError(t, err)
	pc := sc.s.PendingChanges()
	require.Len(t, pc, 1)
	require.NoError(t, sc.s.ApproveChange(pc[0].Tool, pc[0].NewSHA256))
	add(sc.step(1)) // 6
	// The cache entry expires.
	add(sc.step(7.2)) // 7
	add(sc.step(1))   // 8: steady again
	// The harness edits an earlier message of every body itself.
	sc.edit = func(b []byte) []byte { return bytes.Replace(b, []byte("Question 2:"), []byte("Question two:"), 1) }
	add(sc.step(1)) // 9
	add(sc.step(1)) // 10: the edit is steady
	sc.edit = nil
	// Compaction: a new session carries a summary; the harness declares it.
	sc.s = sc.session(t, "m-1")
	require.NoError(t, sc.s.Declare(request.ChangeCompaction, "summarised requests 1-10"))
	require.NoError(t, sc.ledger.Follow(sc.s))
	sc.pending = []request.Message{{Role: request.RoleUser, Text: "Summary so far: " + strings.Repeat("the build failed on a flaky test. ", 30)}, {Role: request.RoleAssistant, Text: "Understood."}}
	add(sc.step(1)) // 11
	add(sc.step(1)) // 12: steady
	// Model change: the conversation moves to a session of another model,
	// which sends the same messages.
	history := sc.s.Messages()
	sc.s = sc.session(t, "m-2")
	sc.pending = append(history, sc.pending...)
	require.NoError(t, sc.ledger.Follow(sc.s))
	add(sc.step(1)) // 13
	add(sc.step(1)) // 14: steady
	// The provider loses the entry and cannot say why.
	sc.fake.evict, sc.fake.diagAny = true, "unavailable"
	add(sc.step(1)) // 15
	return got, moved
}

// TestMissesExplained (issue 45): a scripted conversation exercising each
// cause prints the right cause for each miss — from the provider's
// diagnosis cross-checked with the change log on Anthropic and Responses,
// from the change log alone on Chat Completions and Gemini (and on
// Anthropic and Responses without the option) — and a conversation with
// no change prints none.
func TestMissesExplained(t *testing.T) {
	for _, tc := range []struct {
		p    request.Provider
		diag bool
	}{{request.Anthropic, true}, {request.OpenAIResponses, true}, {request.OpenAIChat, false}, {request.Gemini, false}, {request.Anthropic, false}} {
		t.Run(fmt.Sprintf("%s/diagnostics=%v", tc.p, tc.diag), func(t *testing.T) {
			obs := &recorder{}
			sc := newScript(t, tc.p, tc.diag, obs)
			got, moved := sc.play(true)
			view := budget.MissCause("")
			if moved {
				view = budget.CauseView // SetView moved the prefix: one miss
			}
			// Without a diagnosis the session cannot see an edit made to
			// its bodies, nor why the provider lost an entry.
			outside, lost := budget.CauseUnknown, budget.CauseUnknown
			if tc.diag {
				outside, lost = budget.CauseOutside, budget.CauseUnavailable
			}
			want := []budget.MissCause{"", "", "", view, "", "", budget.CauseExpired, "", outside, "",
				budget.CauseCompaction, "", budget.CauseModel, "", lost}
			assert.Equal(t, want, got)

			var text bytes.Buffer
			require.NoError(t, sc.ledger.Write(&text))
			misses := sc.ledger.Misses()
			for _, m := range misses {
				assert.Contains(t, text.String(), m.Text)
			}
			assert.Equal(t, len(misses), len(obs.details), "one EventCacheMiss a miss")
			assert.Equal(t, "script-m-2", obs.sessions[len(obs.sessions)-1], "the session that missed")
			byTurn := map[int]budget.CacheMiss{}
			for _, m := range misses {
				byTurn[m.Turn] = m
			}
			assert.Contains(t, byTurn[7].Text, "turn 7: ")
			assert.Contains(t, byTurn[7].Text, "expired — 7 min 12 s since turn 6 (TTL 5 min)")
			assert.Contains(t, byTurn[11].Text, "compaction declared by the harness: summarised requests 1-10 at turn 10")
			assert.Contains(t, byTurn[13].Text, "model changed: model m-1 → m-2 at turn 12")
			if moved {
				assert.Contains(t, byTurn[4].Text, "tools changed: SetView(agent) at turn 3")
			}
			if tc.diag {
				assert.Contains(t, byTurn[9].Text, "but the session sent turn 8's messages unchanged: the harness edited history outside the session")
				assert.Equal(t, "unavailable", byTurn[15].Provider)
			} else {
				assert.Contains(t, byTurn[9].Text, "no known cause")
			}
			assert.Positive(t, byTurn[13].Missed)
		})
	}
}

// TestNoChangeNoMiss: a steady conversation explains no miss.
func TestNoChangeNoMiss(t *testing.T) {
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIResponses, request.OpenAIChat, request.Gemini} {
		sc := newScript(t, p, p == request.Anthropic || p == request.OpenAIResponses, nil)
		got, _ := sc.play(false)
		assert.Equal(t, make([]budget.MissCause, len(got)), got, "%s", p)
		assert.Empty(t, sc.ledger.Misses(), "%s", p)
		var text bytes.Buffer
		require.NoError(t, sc.ledger.Write(&text))
		assert.NotContains(t, text.String(), "not read from cache")
	}
}

// TestMissesDoc keeps docs/usage-ledger.md's worked example of explained
// misses equal to the scripted conversation's (TOOLSHELF_UPDATE=1
// rewrites it), on Anthropic with diagnostics and on Chat Completions
// from the change log alone.
func TestMissesDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "usage-ledger.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(doc)
	for _, tc := range []struct {
		name string
		p    request.Provider
		diag bool
	}{{"anthropic", request.Anthropic, true}, {"openai-chat", request.OpenAIChat, false}} {
		sc := newScript(t, tc.p, tc.diag, nil)
		sc.play(true)
		var b strings.Builder
		for _, m := range sc.ledger.Misses() {
			b.WriteString(m.Text + "\n")
		}
		marker := "<!-- misses:" + tc.name + " -->\n```text\n"
		i := strings.Index(text, marker)
		require.NotEqual(t, -1, i, "docs/usage-ledger.md has no misses block for %s", tc.name)
		start := i + len(marker)
		end := start + strings.Index(text[start:], "```\n")
		if goldenfile.Updating() {
			text = text[:start] + b.String() + text[end:]
			continue
		}
		assert.Equal(t, b.String(), text[start:end], "docs/usage-ledger.md (%s) differs from the scripted run; TOOLSHELF_UPDATE=1 go test ./budget -run TestMissesDoc", tc.name)
	}
	if goldenfile.Updating() {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

// TestSettingsChangeExplained: the conversation moves to a session whose
// settings (Config.Extra) differ; the ledger sees it without a
// declaration.
func TestSettingsChangeExplained(t *testing.T) {
	sc := newScript(t, request.Anthropic, false, nil)
	sc.step(0)
	sc.step(1)
	history := sc.s.Messages()
	cfg := sc.config("m-1")
	cfg.Extra = map[string]json.RawMessage{"max_tokens": json.RawMessage(`2048`)}
	s, err := request.NewSession(cfg)
	require.NoError(t, err)
	sc.s, sc.pending = s, append(history, sc.pending...)
	require.NoError(t, sc.ledger.Follow(s))
	l := sc.step(1)
	require.NotNil(t, l.Miss)
	assert.Equal(t, budget.CauseSettings, l.Miss.Cause)
	assert.Contains(t, l.Miss.Text, "settings changed: Config.Extra differs from the previous request's")
}

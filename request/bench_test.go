package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// benchCatalog builds the 400-tool catalog of the benchmarks from the real
// catalogs: every catalog in testdata/, plus renamed copies of the github
// server's tools to reach 400. The policy keeps the first 100 tools (in
// snapshot order) resident and defers the other 300.
func benchCatalog(b testing.TB) (*registry.Snapshot, *deferral.Policy) {
	files := []string{harnessFile}
	for _, s := range []string{"everything", "fetch", "filesystem", "git", "github", "kubernetes", "memory", "playwright", "sequential-thinking", "time"} {
		files = append(files, "catalogs/"+s+".tools.json")
	}
	reg, cats := loadCatalogs(b, 0, files...)
	var gh *registry.Catalog
	for _, c := range cats {
		if c.Server == "github" {
			gh = c
		}
	}
	for copyN := 2; len(reg.Snapshot().Tools()) < 400; copyN++ {
		need := 400 - len(reg.Snapshot().Tools())
		c := *gh
		c.Server = fmt.Sprintf("github%d", copyN)
		c.Tools = gh.Tools[:min(need, len(gh.Tools))]
		if err := reg.Import(&c); err != nil {
			b.Fatal(err)
		}
	}
	snap := reg.Snapshot()
	rules := []string{"Defer(*)"}
	for _, t := range snap.Tools()[:100] {
		rules = append(rules, "NoDefer("+t.Name+")")
	}
	policy := &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("bench", rules...)}}
	plan, err := policy.Plan(snap, deferral.View{Tier: registry.TierFull})
	if err != nil {
		b.Fatal(err)
	}
	if len(plan.Resident()) != 100 || len(plan.Deferred()) != 300 {
		b.Fatalf("catalog: %d resident, %d deferred; want 100 and 300", len(plan.Resident()), len(plan.Deferred()))
	}
	return snap, policy
}

// benchHistory is 200 messages: cycles of a user question, an assistant
// tool call, its result, and an assistant answer.
func benchHistory() []Message {
	var msgs []Message
	for i := 0; len(msgs) < 200; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			userMsg(fmt.Sprintf("Question %d: %s", i, strings.Repeat("please look at the build output and explain it ", 4))),
			call(id, "Read", fmt.Sprintf(`{"file_path":"/src/pkg/file_%d.go","offset":0,"limit":200}`, i)),
			result(id, strings.Repeat("package main\n\nfunc main() {}\n", 20)),
			Message{Role: RoleAssistant, Text: strings.Repeat("The build fails because of a missing import. ", 8)},
		)
	}
	return msgs
}

func benchSession(b *testing.B, p Provider, cache *Cache) (*Session, Config) {
	snap, policy := benchCatalog(b)
	cfg := testConfig(snap, p, policy, cache)
	cfg.View = deferral.View{Tier: registry.TierFull}
	s, err := NewSession(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.BuildRequest(Turn{Messages: benchHistory()}); err != nil {
		b.Fatal(err)
	}
	return s, cfg
}

// naive is the request a harness builds without this library: one plain
// struct, marshalled whole every turn.
type naiveRequest struct {
	Model       string         `json:"model"`
	MaxTokens   int            `json:"max_tokens"`
	Stream      bool           `json:"stream"`
	Temperature float64        `json:"temperature"`
	Tools       []naiveTool    `json:"tools"`
	Messages    []naiveMessage `json:"messages"`
}

type naiveTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string             `json:"name"`
		Description string             `json:"description"`
		Parameters  *jsonschema.Schema `json:"parameters"`
	} `json:"function"`
}

type naiveMessage struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  []naiveToolCall `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type naiveToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// rawRequest is the naive request as a harness that keeps its tools'
// schemas as json.RawMessage writes it: the same tools[] the session sends
// (resident tools and the two entry tools, tool_search's description with
// the index), marshalled whole every turn.
type rawRequest struct {
	Model       string         `json:"model"`
	MaxTokens   int            `json:"max_tokens"`
	Stream      bool           `json:"stream"`
	Temperature float64        `json:"temperature"`
	Tools       []rawTool      `json:"tools"`
	Messages    []naiveMessage `json:"messages"`
}

type rawTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func rawFrom(s *Session) *rawRequest {
	n := naiveFrom(s)
	req := &rawRequest{Model: n.Model, MaxTokens: n.MaxTokens, Stream: n.Stream, Messages: n.Messages}
	for _, t := range s.frozen.Tools() {
		var rt rawTool
		rt.Type = "function"
		rt.Function.Name, rt.Function.Description, rt.Function.Parameters = t.Name, t.Description, t.Schema
		req.Tools = append(req.Tools, rt)
	}
	return req
}

func naiveFrom(s *Session) *naiveRequest {
	req := &naiveRequest{Model: s.cfg.Model, MaxTokens: 4096, Stream: true}
	for _, t := range s.frozen.plan.Resident() {
		var nt naiveTool
		nt.Type = "function"
		nt.Function.Name, nt.Function.Description, nt.Function.Parameters = t.Name, t.Description, t.InputSchema
		req.Tools = append(req.Tools, nt)
	}
	req.Messages = append(req.Messages, naiveMessage{Role: "system", Content: s.cfg.System})
	for _, m := range s.hist.entries {
		nm := naiveMessage{Role: string(m.Role), Content: m.Text, ToolCallID: m.CallID}
		for _, c := range m.ToolCalls {
			var nc naiveToolCall
			nc.ID, nc.Type = c.ID, "function"
			nc.Function.Name, nc.Function.Arguments = c.Name, string(c.Arguments)
			nm.ToolCalls = append(nm.ToolCalls, nc)
		}
		req.Messages = append(req.Messages, nm)
	}
	return req
}

// BenchmarkBuildRequest measures one turn (one new user message) on a
// 400-tool catalog (100 resident, 300 deferred) with 200 messages of
// history against the baselines a harness author would write, like for
// like: AppendRequest into a reused buffer against a json.Encoder into a
// reused buffer, BuildRequest (a fresh body) against json.Marshal (a fresh
// body), both baselines holding the same tools[] (resident and entry
// tools) with schemas as json.RawMessage. "naive-schema" is the older
// baseline holding *jsonschema.Schema, and memmove the floor: a copy of as
// many bytes. The "ratios" sub-benchmark runs each pair in alternating
// blocks, so that a shared machine's load drifts over both alike, and
// reports x/y: x's time over y's.
func BenchmarkBuildRequest(b *testing.B) {
	s, _ := benchSession(b, OpenAIChat, nil)
	turn := Turn{Messages: []Message{userMsg("What changed since the last build?")}}
	base := s.hist.mark() // 200 messages
	out, err := s.BuildRequest(turn)
	if err != nil {
		b.Fatal(err)
	}
	s.hist.rewind(base)

	buf := make([]byte, 0, 2*len(out))
	steady := func() { // a harness that reuses its request buffer
		var err error
		if buf, err = s.AppendRequest(buf[:0], turn); err != nil {
			b.Fatal(err)
		}
		s.hist.rewind(base)
	}
	steadyAlloc := func() { // BuildRequest, a fresh body per turn
		if _, err := s.BuildRequest(turn); err != nil {
			b.Fatal(err)
		}
		s.hist.rewind(base)
	}
	user := naiveMessage{Role: "user", Content: turn.Messages[0].Text}
	raw, parsed := rawFrom(s), naiveFrom(s)
	var nbuf bytes.Buffer
	nbuf.Grow(2 * len(out))
	enc := json.NewEncoder(&nbuf)
	enc.SetEscapeHTML(false)
	naiveReuse := func() { // json.Encoder into a reused buffer, like steady
		nbuf.Reset()
		raw.Messages = append(raw.Messages, user)
		if err := enc.Encode(raw); err != nil {
			b.Fatal(err)
		}
		raw.Messages = raw.Messages[:len(raw.Messages)-1]
	}
	naive := func() { // json.Marshal, a fresh body, like steady-alloc
		raw.Messages = append(raw.Messages, user)
		if _, err := json.Marshal(raw); err != nil {
			b.Fatal(err)
		}
		raw.Messages = raw.Messages[:len(raw.Messages)-1]
	}
	naiveSchema := func() {
		parsed.Messages = append(parsed.Messages, user)
		if _, err := json.Marshal(parsed); err != nil {
			b.Fatal(err)
		}
		parsed.Messages = parsed.Messages[:len(parsed.Messages)-1]
	}
	dst := make([]byte, len(out))
	memmove := func() { copy(dst, out) }

	for _, sub := range []struct {
		name string
		op   func()
	}{{"steady", steady}, {"steady-alloc", steadyAlloc}, {"naive-reuse", naiveReuse}, {"naive", naive}, {"naive-schema", naiveSchema}, {"memmove", memmove}} {
		b.Run(sub.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sub.op()
			}
			b.ReportMetric(float64(len(out)), "bytes/request")
		})
	}
	b.Run("ratios", func(b *testing.B) {
		// Blocks of each op in turn (~2 ms each, so caches stay warm
		// within a block) alternate, so that load drift hits both alike.
		reps := func(op func()) int {
			t0 := time.Now()
			for range 3 {
				op()
			}
			return max(1, int(2*time.Millisecond/(time.Since(t0)/3+1)))
		}
		block := func(op func(), n int) time.Duration {
			t0 := time.Now()
			for range n {
				op()
			}
			return time.Since(t0)
		}
		pairs := []struct {
			name string
			x, y func()
		}{
			{"steady/memmove", steady, memmove},
			{"naive-reuse/steady", naiveReuse, steady},
			{"naive/steady-alloc", naive, steadyAlloc},
			{"naive-schema/naive", naiveSchema, naive},
		}
		type acc struct {
			nx, ny int
			tx, ty time.Duration
		}
		accs := make([]acc, len(pairs))
		for i, p := range pairs {
			accs[i].nx, accs[i].ny = reps(p.x), reps(p.y)
		}
		for b.Loop() {
			for i, p := range pairs {
				a := &accs[i]
				a.tx += block(p.x, a.nx)
				a.ty += block(p.y, a.ny)
			}
		}
		for i, p := range pairs {
			a := &accs[i]
			b.ReportMetric((float64(a.tx)/float64(a.nx))/(float64(a.ty)/float64(a.ny)), p.name)
		}
	})
}

// BenchmarkSessionMemory reports the heap each additional session holds
// when it shares a frozen prefix with the others (B/session).
func BenchmarkSessionMemory(b *testing.B) {
	cache := NewCache()
	_, cfg := benchSession(b, Anthropic, cache)
	sessions := make([]*Session, 0, 1024)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		s, err := NewSession(cfg)
		if err != nil {
			b.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if cache.Len() != 1 {
		b.Fatalf("cache holds %d prefixes, want 1", cache.Len())
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(sessions)), "B/session")
	b.ReportMetric(float64(len(sessions[0].Prefix())), "shared-prefix-bytes")
	runtime.KeepAlive(sessions)
}

// TestSteadyRequestAllocatesNothing: on every provider, a steady turn —
// AppendRequest into a reused buffer, a user message, or a tool call and
// its result (Gemini reads the call's name back for its
// functionResponse) — allocates nothing, over a 200-message history.
func TestSteadyRequestAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts: the race detector's sync.Pool drops items at random")
	}
	turns := []Turn{
		{Messages: []Message{userMsg("What changed since the last build?")}},
		{Messages: []Message{userMsg("Read a.go."), {Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "steady-1", Name: "Read", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
			result("steady-1", "package a")}},
	}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			snap, policy := benchCatalog(t)
			cfg := testConfig(snap, p, policy, nil)
			cfg.View = deferral.View{Tier: registry.TierFull}
			s, err := NewSession(cfg)
			require.NoError(t, err)
			_, err = s.BuildRequest(Turn{Messages: benchHistory()})
			require.NoError(t, err)
			for _, turn := range turns {
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
				assert.Zero(t, allocs, "%s: %d messages", p, len(turn.Messages))
			}
		})
	}
}

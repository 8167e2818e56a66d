package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// benchCatalog builds the 400-tool catalog of the benchmarks from the real
// catalogs: every catalog in testdata/, plus renamed copies of the github
// server's tools to reach 400. The policy keeps the first 100 tools (in
// snapshot order) resident and defers the other 300.
func benchCatalog(b *testing.B) (*registry.Snapshot, *deferral.Policy) {
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
	for copyN := 2; reg.Snapshot().Len() < 400; copyN++ {
		need := 400 - reg.Snapshot().Len()
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
// many bytes. The memmove sub-benchmark, which runs last, reports the
// ratios of the run (x/y: x's time over y's).
func BenchmarkBuildRequest(b *testing.B) {
	s, _ := benchSession(b, OpenAIChat, nil)
	turn := Turn{Messages: []Message{userMsg("What changed since the last build?")}}
	base := s.hist.mark() // 200 messages
	out, err := s.BuildRequest(turn)
	if err != nil {
		b.Fatal(err)
	}
	s.hist.rewind(base)
	ns := map[string]float64{}
	record := func(b *testing.B, name string) {
		ns[name] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	}

	// steady: a harness that reuses its request buffer (AppendRequest).
	b.Run("steady", func(b *testing.B) {
		buf := make([]byte, 0, 2*len(out))
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = s.AppendRequest(buf[:0], turn); err != nil {
				b.Fatal(err)
			}
			s.hist.rewind(base)
		}
		record(b, "steady")
		b.ReportMetric(float64(len(out)), "bytes/request")
	})
	// steady-alloc: BuildRequest, a fresh body per turn.
	b.Run("steady-alloc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.BuildRequest(turn); err != nil {
				b.Fatal(err)
			}
			s.hist.rewind(base)
		}
		record(b, "steady-alloc")
	})
	user := naiveMessage{Role: "user", Content: turn.Messages[0].Text}
	// naive-reuse: json.Encoder into a reused buffer, like steady.
	b.Run("naive-reuse", func(b *testing.B) {
		req := rawFrom(s)
		var buf bytes.Buffer
		buf.Grow(2 * len(out))
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			req.Messages = append(req.Messages, user)
			if err := enc.Encode(req); err != nil {
				b.Fatal(err)
			}
			req.Messages = req.Messages[:len(req.Messages)-1]
		}
		record(b, "naive-reuse")
		b.ReportMetric(float64(buf.Len()), "bytes/request")
	})
	// naive: json.Marshal, a fresh body, like steady-alloc.
	b.Run("naive", func(b *testing.B) {
		req := rawFrom(s)
		b.ReportAllocs()
		for b.Loop() {
			req.Messages = append(req.Messages, user)
			if _, err := json.Marshal(req); err != nil {
				b.Fatal(err)
			}
			req.Messages = req.Messages[:len(req.Messages)-1]
		}
		record(b, "naive")
	})
	b.Run("naive-schema", func(b *testing.B) {
		req := naiveFrom(s)
		b.ReportAllocs()
		for b.Loop() {
			req.Messages = append(req.Messages, user)
			if _, err := json.Marshal(req); err != nil {
				b.Fatal(err)
			}
			req.Messages = req.Messages[:len(req.Messages)-1]
		}
		record(b, "naive-schema")
	})
	b.Run("memmove", func(b *testing.B) {
		dst := make([]byte, len(out))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, out)
		}
		record(b, "memmove")
		if ns["steady"] > 0 && ns["naive"] > 0 {
			b.ReportMetric(ns["steady"]/ns["memmove"], "steady/memmove")
			b.ReportMetric(ns["naive-reuse"]/ns["steady"], "naive-reuse/steady")
			b.ReportMetric(ns["naive"]/ns["steady-alloc"], "naive/steady-alloc")
			b.ReportMetric(ns["naive-schema"]/ns["naive"], "naive-schema/naive")
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

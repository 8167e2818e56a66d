// Package scale is the scale benchmark: many live sessions in one process
// over one registry, turn after turn, measuring per-turn latency,
// allocations, retained heap per session and the garbage collector's share
// of the CPU. Its test runs a small load by default and the full
// load (10,000 sessions, 50 turns, 1,000 tools) with flags; see
// docs/performance.md.
package scale

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/search"
)

// Options sizes a run.
type Options struct {
	// Testdata is the repository's testdata directory (catalogs, fixtures).
	Testdata string
	// Sessions live at the same time; each plays Turns requests.
	Sessions, Turns int
	// Tools in the registry: the harness fixture's built-in tools plus
	// renamed copies of the MCP catalogs (every MCP tool deferred).
	Tools int
	// SelfBuiltEvery: one session in this many writes self-built tools.
	SelfBuiltEvery int
	// LateServerEvery: one session in this many (not those writing
	// self-built tools) syncs, at every turn, with the registry, where a
	// late server connects before its turn 3; 0 means none.
	LateServerEvery int
	// Workers run sessions' turns in parallel; 0 means GOMAXPROCS.
	Workers int
	// CounterBytes bounds the shared token counter's cache.
	CounterBytes int
	// Provider is the sessions' encoder; "" means Anthropic.
	Provider request.Provider
}

// Report is what a run measured.
type Report struct {
	Options
	Deferred int // deferred tools in the plan
	// Turn latency, BuildRequest (AppendRequest into the worker's buffer)
	// plus one tool_search call, in nanoseconds.
	P50, P99, Max time.Duration
	// The same turns' CPU time on their thread (Linux; zero elsewhere):
	// what a turn costs without the time a shared machine's other
	// processes took from it.
	CPUP50, CPUP99, CPUMax time.Duration
	// Allocations per turn, over the whole loop (the harness's own message
	// building, the dispatcher's calls and accounting included).
	AllocsPerTurn, BytesPerTurn float64
	// RetainedPerSession is the live heap per session after the run, once
	// collected, above the heap before the first session; HistoryPerSession
	// is the mean encoded history (last request minus its prefix).
	RetainedPerSession, HistoryPerSession float64
	// GCShare is the garbage collector's share of the CPU time of the run.
	GCShare float64
	// SharedIndexBuilds counts index builds over the catalog; OverlayBuilds
	// those over one session's self-built tools.
	SharedIndexBuilds, OverlayBuilds int64
	// Prefixes is how many frozen prefixes the cache holds.
	Prefixes int
	// CounterHeld and CounterMax are the token cache's bytes at the end and
	// the most seen at any sample, against Options.CounterBytes.
	CounterHeld, CounterMax int
	// Calls through the dispatcher, and turns whose search found the
	// session's own self-built tool.
	Calls, SelfFound, SelfSearches int64
	// LateSessions received the late server; LateSearches searched for
	// its tool after it arrived, LateFound found it first, LateCalls
	// called it through defer_execute and got its answer.
	LateSessions, LateSearches, LateFound, LateCalls int64
	Elapsed                                          time.Duration
}

// String formats the report as the lines docs/performance.md quotes.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sessions %d × turns %d on %d tools (%d deferred), 1 in %d writing self-built tools, %d workers, GOMAXPROCS %d\n",
		r.Sessions, r.Turns, r.Tools, r.Deferred, r.SelfBuiltEvery, r.Workers, runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "turn (BuildRequest + one tool_search), wall: p50 %s, p99 %s, max %s\n", r.P50, r.P99, r.Max)
	fmt.Fprintf(&b, "turn, CPU time of its thread: p50 %s, p99 %s, max %s\n", r.CPUP50, r.CPUP99, r.CPUMax)
	fmt.Fprintf(&b, "allocations per turn: %.0f (%.0f B), whole loop\n", r.AllocsPerTurn, r.BytesPerTurn)
	fmt.Fprintf(&b, "retained heap per session: %.0f B; encoded history per session: %.0f B; ratio %.2f\n",
		r.RetainedPerSession, r.HistoryPerSession, r.RetainedPerSession/r.HistoryPerSession)
	fmt.Fprintf(&b, "GC share of CPU: %.1f%%\n", 100*r.GCShare)
	fmt.Fprintf(&b, "shared index builds: %d; overlay builds: %d; frozen prefixes: %d\n", r.SharedIndexBuilds, r.OverlayBuilds, r.Prefixes)
	fmt.Fprintf(&b, "token cache: %d B held, %d B at most, bound %d B\n", r.CounterHeld, r.CounterMax, r.CounterBytes)
	fmt.Fprintf(&b, "dispatched calls: %d; searches for a session's own tool: %d, found first: %d\n", r.Calls, r.SelfSearches, r.SelfFound)
	if r.LateServerEvery > 0 {
		fmt.Fprintf(&b, "late server: 1 session in %d (%d sessions); searches for its tool: %d, found first: %d; calls answered: %d\n",
			r.LateServerEvery, r.LateSessions, r.LateSearches, r.LateFound, r.LateCalls)
	}
	fmt.Fprintf(&b, "elapsed %s\n", r.Elapsed.Round(time.Millisecond))
	return b.String()
}

// countingRanker is BM25F counting its builds by size.
type countingRanker struct {
	toolsearch.BM25F
	shared, overlay atomic.Int64
	threshold       int
}

func (c *countingRanker) Index(ctx context.Context, tools []*registry.Tool) (search.Index, error) {
	if len(tools) >= c.threshold {
		c.shared.Add(1)
	} else {
		c.overlay.Add(1)
	}
	return c.BM25F.Index(ctx, tools)
}

// queries are what the scripted model searches for.
var queries = []string{
	"open a pull request", "take a screenshot of the page", "list pods in a namespace", "read a file",
	"create an issue", "search code in a repository", "get the current time in a timezone", "fetch a web page",
	"commit staged changes", "show the git log", "delete a kubernetes deployment", "click a button",
	"store a memory about the user", "list directory contents", "merge a branch", "get pod logs",
}

// Registry builds the benchmark's registry: the harness fixture's tools
// (built-in) and renamed copies of every MCP catalog, n tools in all. Every
// tool answers with a short text.
func Registry(testdata string, n int) (*registry.Registry, error) {
	reg := registry.New(nil)
	echo := func(_ context.Context, params json.RawMessage) (registry.Result, error) {
		return registry.Result{Text: fmt.Sprintf("done (%d bytes of parameters)", len(params))}, nil
	}
	harness, err := registry.LoadCatalog(filepath.Join(testdata, "fixtures", "harness-catalog.json"))
	if err != nil {
		return nil, err
	}
	harness.Server = ""
	for i := range harness.Tools {
		harness.Tools[i].Handler = echo
	}
	if err := reg.Import(harness); err != nil && !errors.Is(err, registry.ErrRejected) { // measured without the tools left out, as before
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(testdata, "catalogs", "*.tools.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var cats []*registry.Catalog
	for _, p := range paths {
		c, err := registry.LoadCatalog(p)
		if err != nil {
			return nil, err
		}
		for i := range c.Tools {
			c.Tools[i].Handler = echo
		}
		cats = append(cats, c)
	}
	for k := 0; len(reg.Snapshot().Tools()) < n; k++ {
		for _, c := range cats {
			rest := n - len(reg.Snapshot().Tools())
			if rest <= 0 {
				break
			}
			cp := *c
			cp.Server = fmt.Sprintf("%s-%d", strings.ReplaceAll(filepath.Base(c.Server), "_", "-"), k)
			cp.Tools = c.Tools[:min(rest, len(c.Tools))]
			if err := reg.Import(&cp); err != nil && !errors.Is(err, registry.ErrRejected) { // measured without the tools left out, as before
				return nil, err
			}
		}
	}
	return reg, nil
}

// session is the harness's side of one conversation: only what the next
// turn needs (the session keeps the history, encoded).
type session struct {
	s        *request.Session
	counter  *budget.Counter
	secs     []budget.Section // the turn's new messages, measured
	tokens   budget.Tokens    // their running total
	next     []request.Message
	selfName string
	history  int
	late     bool // follows the registry, where a late server connects
}

// Run plays the load and measures it.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.SelfBuiltEvery <= 0 {
		o.SelfBuiltEvery = 10
	}
	env, err := newRunEnv(o)
	if err != nil {
		return nil, err
	}
	// What every session shares is built before the baseline: the frozen
	// prefix and its index (by a first session), the tokenizer.
	warm, err := env.newSession(-1)
	if err != nil {
		return nil, err
	}
	env.counter.Count(budget.KindProse, "warm up")

	// Everything the run itself needs is allocated before the baseline.
	lat := make([]time.Duration, o.Sessions*o.Turns)
	cpu := make([]time.Duration, o.Sessions*o.Turns)
	sessions := make([]session, o.Sessions)
	var counterMax atomic.Int64
	rep := &Report{Options: o, Deferred: len(env.deferred)}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(samples)
	gc0, cpu0, objs0, bytes0 := samples[0].Value.Float64(), samples[1].Value.Float64(), samples[2].Value.Uint64(), samples[3].Value.Uint64()
	start := time.Now()

	if err := env.openSessions(o, sessions); err != nil {
		return nil, err
	}
	t := &runTallies{}
	if err := env.runTurns(ctx, o, sessions, lat, cpu, &counterMax, t); err != nil {
		return nil, err
	}
	rep.Elapsed = time.Since(start)
	metrics.Read(samples)
	rep.GCShare = (samples[0].Value.Float64() - gc0) / (samples[1].Value.Float64() - cpu0)
	turns := float64(o.Sessions * o.Turns)
	rep.AllocsPerTurn = float64(samples[2].Value.Uint64()-objs0) / turns
	rep.BytesPerTurn = float64(samples[3].Value.Uint64()-bytes0) / turns

	var hist int
	for i := range sessions {
		sessions[i].next, sessions[i].secs = nil, nil // the harness's own, not the session's
		hist += sessions[i].history
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// The token cache and the dispatcher's schema cache grew during the
	// run: charged to the sessions, they make the figure an upper bound.
	rep.RetainedPerSession = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(o.Sessions)
	rep.HistoryPerSession = float64(hist) / float64(o.Sessions)
	runtime.KeepAlive(sessions)
	runtime.KeepAlive(warm)

	env.fillReport(rep, lat, cpu, &counterMax, t)
	return rep, nil
}

// runEnv is what every session of a run shares: the catalog (and its copy
// with a late server), the policy, the dispatcher, the ranker, the token
// counter and the prefix cache.
type runEnv struct {
	snap, lateSnap *registry.Snapshot
	policy         *deferral.Policy
	d              *execute.Dispatcher
	ranker         *countingRanker
	counter        *budget.Counter
	cache          *request.Cache
	deferred       []*registry.Tool
	provider       request.Provider // "" is Anthropic
}

// newRunEnv builds the catalog of o.Tools tools and what the sessions share.
func newRunEnv(o Options) (*runEnv, error) {
	reg, err := Registry(o.Testdata, o.Tools)
	if err != nil {
		return nil, err
	}
	snap := reg.Snapshot()
	lateSnap, err := withLateServer(reg)
	if err != nil {
		return nil, err
	}
	policy := &deferral.Policy{Default: deferral.DefaultResident, Layers: []deferral.Layer{deferral.MustLayer("scale", "Defer(mcp__*)")}}
	d, err := execute.New(&execute.Options{Permissions: execute.MustPermissions("Deny(mcp__github-0__delete_*)")})
	if err != nil {
		return nil, err
	}
	// The sessions' plan: the tools the rule denies leave the index.
	governed := *policy
	governed.Denied = d.Denied
	plan, err := governed.Plan(snap, deferral.View{})
	if err != nil {
		return nil, err
	}
	ranker := &countingRanker{threshold: len(plan.Deferred())}
	counter, err := budget.NewCounterCache("o200k_base", o.CounterBytes)
	if err != nil {
		return nil, err
	}
	return &runEnv{snap: snap, lateSnap: lateSnap, policy: policy, d: d, ranker: ranker,
		counter: counter, cache: &request.Cache{}, deferred: plan.Deferred(), provider: o.Provider}, nil
}

// newSession opens session i.
func (e *runEnv) newSession(i int) (*request.Session, error) {
	// A fresh but equal options value per session, as a harness
	// writes it: sessions must still share one prefix and index.
	p, model, extra := request.Anthropic, "claude-sonnet-4-5", map[string]json.RawMessage{"max_tokens": json.RawMessage(`4096`)}
	if e.provider == request.Gemini {
		p, model, extra = request.Gemini, "gemini-2.5-flash", map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"maxOutputTokens":4096}`)}
	}
	return request.NewSession(request.Config{
		ID: fmt.Sprintf("s%05d", i), Snapshot: e.snap, Policy: e.policy, Provider: p,
		Model: model, System: "You are a coding agent. Use tools when they help.",
		Extra:  extra,
		Search: &search.Options{Ranker: e.ranker, MaxFullSchemas: 1}, Dispatcher: e.d, Cache: e.cache, SelfBuilt: true,
		DropMessages: true, // the harness stores the conversation itself
	})
}

// openSessions opens one session per element of sessions, each with its
// first user message.
func (e *runEnv) openSessions(o Options, sessions []session) error {
	for i := range sessions {
		s, err := e.newSession(i)
		if err != nil {
			return err
		}
		sessions[i] = session{s: s, counter: e.counter, late: o.LateServerEvery > 0 && i%o.LateServerEvery == o.LateServerEvery/2 && i%o.SelfBuiltEvery != 0,
			next: []request.Message{{Role: request.RoleUser, Text: fmt.Sprintf("Task %d: %s, then report what you found.", i, queries[i%len(queries)])}}}
	}
	return nil
}

// runTallies counts what the turns of a run did.
type runTallies struct {
	calls, selfFound, selfSearches atomic.Int64
	late                           lateCounts
}

// runTurns plays o.Turns turns of every session on o.Workers workers,
// recording each turn's latency and CPU time in lat and cpu, and the token
// counter's largest cache in counterMax.
func (e *runEnv) runTurns(ctx context.Context, o Options, sessions []session, lat, cpu []time.Duration, counterMax *atomic.Int64, t *runTallies) error {
	snaps := [2]*registry.Snapshot{e.snap, e.lateSnap}
	var firstErr error
	var errOnce sync.Once
	for turn := range o.Turns {
		var wg sync.WaitGroup
		var nextSession atomic.Int64
		for range o.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var buf []byte
				for {
					i := int(nextSession.Add(1) - 1)
					if i >= len(sessions) || ctx.Err() != nil {
						return
					}
					if err := playTurn(ctx, &sessions[i], i, turn, o, &buf, lat, cpu, &t.calls, &t.selfFound, &t.selfSearches, snaps, &t.late); err != nil {
						errOnce.Do(func() { firstErr = fmt.Errorf("session %d turn %d: %w", i, turn, err) })
						return
					}
				}
			}()
		}
		wg.Wait()
		if firstErr != nil {
			return firstErr
		}
		held, _ := e.counter.CacheBytes()
		counterMax.Store(max(counterMax.Load(), int64(held)))
	}
	return nil
}

// fillReport sorts lat and cpu into rep's percentiles and copies in the
// shared parts' and the turns' counts.
func (e *runEnv) fillReport(rep *Report, lat, cpu []time.Duration, counterMax *atomic.Int64, t *runTallies) {
	slices.Sort(lat)
	rep.P50, rep.P99, rep.Max = lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	slices.Sort(cpu)
	rep.CPUP50, rep.CPUP99, rep.CPUMax = cpu[len(cpu)/2], cpu[len(cpu)*99/100], cpu[len(cpu)-1]
	rep.SharedIndexBuilds, rep.OverlayBuilds = e.ranker.shared.Load(), e.ranker.overlay.Load()
	rep.Prefixes = e.cache.Len()
	held, _ := e.counter.CacheBytes()
	rep.CounterHeld, rep.CounterMax = held, int(max(counterMax.Load(), int64(held)))
	rep.Calls, rep.SelfFound, rep.SelfSearches = t.calls.Load(), t.selfFound.Load(), t.selfSearches.Load()
	rep.LateSessions, rep.LateSearches, rep.LateFound, rep.LateCalls = t.late.sessions.Load(), t.late.searches.Load(), t.late.found.Load(), t.late.calls.Load()
}

// playTurn sends one request of session i and plays the scripted model's
// reply: one tool_search call (timed with the request), on even turns a
// call of a loaded tool through defer_execute, and in one session of
// SelfBuiltEvery a self-built tool written at turn 2 and searched for
// every fourth turn after.
func playTurn(ctx context.Context, ss *session, i, turn int, o Options, buf *[]byte,
	lat, cpu []time.Duration, calls, selfFound, selfSearches *atomic.Int64, snaps [2]*registry.Snapshot, late *lateCounts) error {
	s := ss.s
	q := queries[(i+turn)%len(queries)]
	searchingSelf := ss.selfName != "" && turn%4 == 0
	if searchingSelf {
		q = fmt.Sprintf("zorblat ledger %d report", i)
	}
	searchingLate := ss.late && turn >= lateTurn && turn%4 == 0
	if searchingLate {
		q = lateQuery
	}
	searchID := fmt.Sprintf("call_%d_s", turn)
	args, _ := json.Marshal(map[string]any{"queries": []string{q}})

	c0, _ := threadCPU()
	t0 := time.Now()
	if ss.late {
		// A harness asking its registry before every request: the
		// snapshot is the same on every turn but one, and then Sync
		// costs nothing.
		if err := syncLate(ss, turn, snaps, late); err != nil {
			return err
		}
	}
	body, err := s.AppendRequest((*buf)[:0], request.Turn{Messages: ss.next})
	if err != nil {
		return err
	}
	res := s.Call(ctx, registry.ToolSearchName, args)
	lat[i*o.Turns+turn] = time.Since(t0)
	if c1, ok := threadCPU(); ok {
		cpu[i*o.Turns+turn] = c1 - c0
	}
	*buf = body
	ss.history = len(body) - len(s.Prefix())

	if res.IsError {
		return fmt.Errorf("tool_search %s: %s", args, res.Text)
	}
	if searchingLate {
		late.searched(ctx, s, res.Text)
	}
	if searchingSelf {
		selfSearches.Add(1)
		own, other := strings.Index(res.Text, ss.selfName), strings.Index(res.Text, toolname.MCPPrefix)
		if own >= 0 && (other < 0 || own < other) {
			selfFound.Add(1)
		}
	}
	// Accounting for the new text only.
	ss.secs = ss.secs[:0]
	for _, m := range ss.next {
		ss.secs = append(ss.secs, budget.Section{Name: string(m.Role), Class: budget.ClassMessage, Text: m.Text, Frozen: true})
	}
	ss.tokens = ss.tokens.Add(ss.counter.Measure(ss.secs).Total.Tokens)

	reply := request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: searchID, Name: registry.ToolSearchName, Arguments: args}}}
	results := []request.Message{{Role: request.RoleTool, CallID: searchID, Text: res.Text, IsError: res.IsError}}
	if turn%2 == 0 {
		loaded := s.LoadedNames()
		if len(loaded) > 0 {
			target := loaded[(i+turn)%len(loaded)]
			id := fmt.Sprintf("call_%d_x", turn)
			a, _ := json.Marshal(map[string]any{"tool_name": target, "params": map[string]any{}})
			reply.ToolCalls = append(reply.ToolCalls, request.ToolCall{ID: id, Name: registry.DeferExecuteName, Arguments: a})
			r := s.Call(ctx, registry.DeferExecuteName, a)
			calls.Add(1)
			results = append(results, request.Message{Role: request.RoleTool, CallID: id, Text: r.Text, IsError: r.IsError})
		}
	}
	if i%o.SelfBuiltEvery == 0 && turn == 2 {
		ss.selfName = fmt.Sprintf("zorblat_report_%d", i)
		if err := s.RegisterSelfBuilt(registry.Tool{Name: ss.selfName,
			Description: fmt.Sprintf("Summarise zorblat ledger %d as a report.", i),
			RawSchema:   json.RawMessage(`{"type":"object","properties":{"ledger":{"type":"string","description":"Ledger id."}},"required":["ledger"]}`)}); err != nil {
			return err
		}
	}
	ss.next = append([]request.Message{reply}, results...)
	if turn%10 == 9 {
		ss.next = append(ss.next, request.Message{Role: request.RoleUser, Text: fmt.Sprintf("Good. Next, %s.", queries[(i+turn+1)%len(queries)])})
	}
	return nil
}

// TestdataDir finds the repository's testdata directory from the working
// directory upwards.
func TestdataDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "testdata", "catalogs")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return filepath.Join(dir, "testdata"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("scale: no testdata/catalogs above the working directory")
		}
		dir = parent
	}
}

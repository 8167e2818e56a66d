// Package soak holds the concurrency soak test: many sessions over one
// registry that changes while they run, checked for prefix stability,
// governance and memory. It has no code of its own.
package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// callKey carries a *callInfo in the context of every dispatched call, so
// a handler can tell whether it should have been reached at all.
type callKey struct{}

// callInfo is what the caller knew just before a call.
type callInfo struct {
	plan      *deferral.Plan
	target    string
	wasLoaded bool
	selfBuilt bool
}

// tally counts handler runs, and the runs that must never happen.
type tally struct {
	runs      atomic.Int64
	hidden    atomic.Int64 // a tool hidden from the calling session ran
	unloaded  atomic.Int64 // a deferred tool ran before its schema was loaded
	wrong     atomic.Int64 // a handler ran for a call of another tool
	unguarded atomic.Int64 // a handler ran without the caller's context
}

func (c *tally) handler(name string) registry.Handler {
	return func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
		c.runs.Add(1)
		info, ok := ctx.Value(callKey{}).(*callInfo)
		switch {
		case !ok:
			c.unguarded.Add(1)
		case info.target != name:
			c.wrong.Add(1)
		case info.selfBuilt:
			if !info.wasLoaded {
				c.unloaded.Add(1)
			}
		default:
			switch info.plan.State(name) {
			case deferral.Hidden:
				c.hidden.Add(1)
			case deferral.Deferred:
				if !info.wasLoaded {
					c.unloaded.Add(1)
				}
			}
		}
		return registry.Result{Text: name + ": ok"}, nil
	}
}

// soakRegistry imports the harness catalog and three MCP servers, every
// tool with a counting handler.
func soakRegistry(t *testing.T, c *tally) *registry.Registry {
	t.Helper()
	reg := registry.New(nil)
	load := func(path string) *registry.Catalog {
		cat, err := registry.LoadCatalog(path)
		require.NoError(t, err)
		var keep []registry.Tool
		for _, tl := range cat.Tools {
			if cat.Server == "" && strings.HasPrefix(tl.Name, toolname.MCPPrefix) {
				continue // the harness's own mcp__ samples collide with the real servers
			}
			name := tl.Name
			if cat.Server != "" {
				name = toolname.MCPName(cat.Server, tl.Name)
			}
			tl.Handler = c.handler(name)
			keep = append(keep, tl)
		}
		cat.Tools = keep
		return cat
	}
	require.NoError(t, reg.Import(load(filepath.Join("..", "..", "..", "testdata", "fixtures", "harness-catalog.json"))))
	for _, s := range []string{"github", "filesystem", "memory"} {
		require.NoError(t, reg.Import(load(filepath.Join("..", "..", "..", "testdata", "catalogs", s+".tools.json"))))
	}
	return reg
}

// soakSize returns the number of sessions, goroutines and turns per
// session. A long run (TOOLSHELF_LONG=1, see internal/testkit/longtest; .ci/run
// sets it) is 1,000 sessions on 100 goroutines, 5 turns each (2 under
// -race), with 200 sessions under -short. Otherwise the soak runs 200
// sessions of 2 turns, on as many goroutines: every check, at a size that
// keeps the README's test command short. TOOLSHELF_SOAK_SESSIONS and
// TOOLSHELF_SOAK_TURNS override.
func soakSize(t *testing.T) (sessions, workers, turns int) {
	sessions, workers, turns = 1000, 100, 5
	if raceOn {
		turns = 2
	}
	if testing.Short() || !longtest.On() {
		sessions = 200
	}
	if !longtest.On() {
		turns = 2
	}
	for _, o := range []struct {
		env string
		p   *int
	}{{"TOOLSHELF_SOAK_SESSIONS", &sessions}, {"TOOLSHELF_SOAK_TURNS", &turns}} {
		if v := os.Getenv(o.env); v != "" {
			n, err := strconv.Atoi(v)
			require.NoError(t, err, o.env)
			require.Positive(t, n, o.env)
			*o.p = n
		}
	}
	return sessions, min(workers, sessions), turns
}

var queries = []string{
	"create pull request", "list issues", "read file", "search code", "write file",
	"generate image", "schedule a job", "knowledge graph entities", "move file", "notify me",
}

func heap() uint64 {
	for range 3 {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// stats are the figures of one soak run.
type stats struct {
	sessions, turns, searches, dispatches atomic.Int64
	mutations                             *atomic.Int64
}

// TestSoak runs sessions × turns over one registry while tools are
// registered and removed, 100 goroutines at a time, each session building
// requests, searching (tool_search through Session.Call) and dispatching
// (defer_execute and direct calls through an execute.Dispatcher). Then:
// every session's prefix was byte-identical on every turn; no handler ran
// for a hidden tool, an unloaded deferred tool or a call of another tool;
// sessions created after a change saw it; every session object was
// collected once its conversation ended, and the heap came back to its
// starting level.
func TestSoak(t *testing.T) {
	total, workers, turns := soakSize(t)
	every := 125 // sessions between two registry changes
	if raceOn {
		every = 250 // each change costs a freeze per config, ~10× slower under -race
	}
	c := &tally{}
	reg := soakRegistry(t, c)
	d, err := execute.New(&execute.Options{Permissions: execute.MustPermissions("Deny(mcp__github__delete_*)")})
	require.NoError(t, err)
	cache := &request.Cache{}
	policy := &deferral.Policy{Default: deferral.DefaultResident, Layers: []deferral.Layer{
		deferral.MustLayer("soak", "Defer(mcp__*)", "Defer(soak_*)", "NoDefer(mcp__github__get_*)"),
	}}
	views := []deferral.View{
		{},
		{Mode: deferral.Mode{Name: "ask", ReadOnly: true}},
		{Mode: deferral.Mode{Name: "github", Allow: []string{"Read", "Grep", "mcp__github__*", "soak_*"}}},
	}
	providers := []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini}
	st := &stats{mutations: new(atomic.Int64)}
	var mu sync.Mutex
	var failures []string
	fail := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, fmt.Sprintf(format, a...))
		}
	}

	// mutate registers soak_<k> and removes soak_<k-1>, then checks that a
	// session created afterwards sees the new tool and not the old one.
	var mutMu sync.Mutex
	mutation := 0
	mutate := func() {
		mutMu.Lock()
		defer mutMu.Unlock()
		mutation++
		name := fmt.Sprintf("soak_%d", mutation)
		if err := reg.Register(registry.Tool{Name: name, Description: "Soak tool number " + strconv.Itoa(mutation) + ".",
			RawSchema: json.RawMessage(`{"type":"object"}`), Handler: c.handler(name)}); err != nil {
			fail("register %s: %v", name, err)
			return
		}
		if mutation > 1 {
			if err := reg.Remove(fmt.Sprintf("soak_%d", mutation-1)); err != nil {
				fail("remove: %v", err)
			}
		}
		st.mutations.Add(1)
		s, err := request.NewSession(request.Config{ID: "probe", Snapshot: reg.Snapshot(), Policy: policy,
			Provider: request.Anthropic, Model: "m", Extra: outputBound(request.Anthropic), Cache: cache, Dispatcher: d})
		if err != nil {
			fail("probe session: %v", err)
			return
		}
		if _, deferred, ok := s.Lookup(name); !ok || !deferred {
			fail("a session created after registering %s does not see it deferred", name)
		}
		if _, _, ok := s.Lookup(fmt.Sprintf("soak_%d", mutation-1)); ok && mutation > 1 {
			fail("a session created after removing soak_%d still sees it", mutation-1)
		}
	}
	mutate()

	// One conversation; returns a weak pointer to its session.
	converse := func(ctx context.Context, id int, rng *rand.Rand) weak.Pointer[request.Session] {
		// Sessions that take self-built tools share one view and provider:
		// every distinct config is one more prefix to freeze per snapshot.
		takesSelfBuilt := id%10 == 0
		view, provider := views[id%len(views)], providers[id%len(providers)]
		if takesSelfBuilt {
			view, provider = views[0], providers[0]
		}
		s, err := request.NewSession(request.Config{
			ID: "s" + strconv.Itoa(id), Snapshot: reg.Snapshot(), Policy: policy, View: view,
			SessionVars: map[string]string{"cwd": "/home/dev/repo"}, Provider: provider, Model: "m", Extra: outputBound(provider),
			System: "You are a soak test.", Cache: cache, Dispatcher: d, SelfBuilt: takesSelfBuilt,
		})
		if err != nil {
			fail("session %d: %v", id, err)
			return weak.Pointer[request.Session]{}
		}
		st.sessions.Add(1)
		wp := weak.Make(s)
		plan := s.Plan()
		prefix := bytes.Clone(s.Prefix())
		selfBuilt := ""
		if takesSelfBuilt {
			selfBuilt = "self_" + strconv.Itoa(id)
			// Like a harness's, the handler reaches its conversation.
			h := c.handler(selfBuilt)
			handler := func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
				r, err := h(ctx, params)
				r.Text += " in " + "s" + strconv.Itoa(id) // the session's Config.ID
				return r, err
			}
			if err := s.RegisterSelfBuilt(registry.Tool{Name: selfBuilt, Description: "A tool this conversation wrote.",
				RawSchema: json.RawMessage(`{"type":"object"}`), Handler: handler}); err != nil {
				fail("session %d: self-built: %v", id, err)
			}
		}
		// call runs one tool call with what the caller knows in ctx.
		call := func(name string, args json.RawMessage) registry.Result {
			info := &callInfo{plan: plan, target: name}
			if name == registry.DeferExecuteName {
				var w struct {
					ToolName string `json:"tool_name"`
				}
				_ = json.Unmarshal(args, &w)
				info.target = w.ToolName
			}
			if name == registry.ToolSearchName {
				st.searches.Add(1)
			} else {
				st.dispatches.Add(1)
			}
			info.wasLoaded = slices.Contains(s.LoadedNames(), info.target)
			info.selfBuilt = info.target == selfBuilt && selfBuilt != ""
			return s.Call(context.WithValue(ctx, callKey{}, info), name, args)
		}
		// callable are the tools a call with {} params passes validation
		// for, so that handlers run (or would, if governance failed).
		callable := func(tools []*registry.Tool) []*registry.Tool {
			var out []*registry.Tool
			for _, t := range tools {
				if !bytes.Contains(t.RawSchema, []byte(`"required"`)) {
					out = append(out, t)
				}
			}
			return out
		}
		pick := func(tools []*registry.Tool) string {
			if len(tools) == 0 {
				return "Nothing"
			}
			return tools[rng.IntN(len(tools))].Name
		}
		msgs := []request.Message{{Role: request.RoleUser, Text: "Task " + strconv.Itoa(id) + ": " + queries[id%len(queries)]}}
		for turn := range turns {
			var calls []request.ToolCall
			var results []request.Message
			add := func(name string, args string) {
				cid := fmt.Sprintf("c%d_%d", turn, len(calls))
				r := call(name, json.RawMessage(args))
				calls = append(calls, request.ToolCall{ID: cid, Name: name, Arguments: json.RawMessage(args)})
				results = append(results, request.Message{Role: request.RoleTool, CallID: cid, Text: r.Text, IsError: r.IsError})
			}
			q, _ := json.Marshal(map[string]any{"queries": []string{queries[rng.IntN(len(queries))]}})
			if _, _, ok := s.Lookup(registry.ToolSearchName); ok {
				add(registry.ToolSearchName, string(q))
			}
			target := pick(callable(plan.Deferred()))
			if selfBuilt != "" && turn%2 == 1 {
				target = selfBuilt
			}
			wrap := fmt.Sprintf(`{"tool_name":%q,"params":{}}`, target)
			add(registry.DeferExecuteName, wrap) // refused while unloaded, runs once loaded (schema allowing)
			hidden := pick(callable(hiddenTools(plan)))
			add(registry.DeferExecuteName, fmt.Sprintf(`{"tool_name":%q,"params":{}}`, hidden))
			add(hidden, `{}`)
			add(pick(callable(plan.Resident())), `{}`)
			// The assistant's calls and their results go in one turn: a
			// request that ends with unanswered calls is refused.
			msgs = append(msgs, request.Message{Role: request.RoleAssistant, ToolCalls: calls})
			body, err := s.BuildRequest(request.Turn{Messages: append(append(msgs, results...), request.Message{Role: request.RoleUser, Text: "go on"})})
			if err != nil {
				fail("session %d turn %d: %v", id, turn, err)
				return wp
			}
			st.turns.Add(1)
			if !bytes.HasPrefix(body, prefix) || !bytes.Equal(s.Prefix(), prefix) {
				fail("session %d turn %d: the prefix changed", id, turn)
			}
			if !json.Valid(body) {
				fail("session %d turn %d: body is not valid JSON", id, turn)
			}
			msgs = nil
			if turn == turns-1 {
				// A search that loads the picked tool, then its call runs.
				add(registry.ToolSearchName, fmt.Sprintf(`{"tool_names":[%q]}`, target))
				add(registry.DeferExecuteName, wrap)
			}
		}
		return wp
	}

	// Warm up: the dispatcher's schema cache and the tool_search
	// vocabulary are built once, on first use, and stay by design.
	for i := range len(views) * len(providers) {
		converse(context.Background(), total+i, rand.New(rand.NewPCG(1, uint64(i))))
	}
	st = &stats{mutations: st.mutations}
	before := heap()

	var next atomic.Int64
	ptrs := make([]weak.Pointer[request.Session], total)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for {
				id := int(next.Add(1)) - 1
				if id >= total {
					return
				}
				if id%every == every/2 {
					mutate() // tools come and go while the others build, search and dispatch
				}
				ptrs[id] = converse(context.Background(), id, rng)
			}
		}()
	}
	wg.Wait()
	require.Empty(t, failures)

	after := heap()
	alive := 0
	for _, p := range ptrs {
		if p.Value() != nil {
			alive++
		}
	}
	frozen := cache.Len()
	cache = nil // the shared prefixes of old snapshots go with it
	afterCache := heap()
	runtime.KeepAlive(d)

	t.Logf("soak (race detector %t): %d sessions on %d goroutines, %d turns, %d searches, %d dispatches, %d handler runs, %d registry changes, %d frozen prefixes cached",
		raceOn, st.sessions.Load(), workers, st.turns.Load(), st.searches.Load(), st.dispatches.Load(), c.runs.Load(), st.mutations.Load(), frozen)
	t.Logf("soak: heap %d KiB before, %d KiB after the sessions ended (cache held), %d KiB without the cache; %d sessions still reachable",
		before>>10, after>>10, afterCache>>10, alive)

	assert.EqualValues(t, total, st.sessions.Load())
	assert.EqualValues(t, turns*total, st.turns.Load())
	assert.Positive(t, c.runs.Load(), "no handler ran: the soak exercised nothing")
	assert.Zero(t, c.hidden.Load(), "handler runs of hidden tools")
	assert.Zero(t, c.unloaded.Load(), "handler runs of unloaded deferred tools")
	assert.Zero(t, c.wrong.Load(), "handler runs for a call of another tool")
	assert.Zero(t, c.unguarded.Load(), "handler runs without the caller's context")
	assert.Zero(t, alive, "sessions still reachable after their conversations ended")
	// The shared cache grows with registry changes, never with sessions:
	// at most one prefix per snapshot and distinct config (view, provider,
	// SelfBuilt; plus the probe's).
	configs := len(views)*len(providers) + 2
	assert.LessOrEqual(t, int64(frozen), (st.mutations.Load()+1)*int64(configs))
	// No per-session leak: what stays is bounded by the registry changes
	// (prefixes of old snapshots, while the cache lives), not by sessions.
	// 2 MiB of slack covers the runtime's own bookkeeping.
	assert.LessOrEqual(t, afterCache, before+2<<20, "heap grew by %d KiB over %d sessions", (int64(afterCache)-int64(before))>>10, total)
}

// outputBound is the output-token bound Anthropic requires (max_tokens).
func outputBound(p request.Provider) map[string]json.RawMessage {
	if p != request.Anthropic {
		return nil
	}
	return map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}
}

// hiddenTools returns the snapshot's tools that plan hides, in snapshot
// order.
func hiddenTools(plan *deferral.Plan) []*registry.Tool {
	var out []*registry.Tool
	for _, t := range plan.Snapshot().Tools() {
		if plan.State(t.Name) == deferral.Hidden {
			out = append(out, t)
		}
	}
	return out
}

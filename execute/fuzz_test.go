package execute_test

import (
	"context"
	"encoding/json"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/tagsafe"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// fzRunsKey carries one fuzz iteration's *fzRuns in the context, so the
// handlers, built once, report to the iteration that called them.
type fzRunsKey struct{}

// fzRuns records which handlers ran.
type fzRuns struct {
	mu    sync.Mutex
	names []string
}

func fzHandler(name string) registry.Handler {
	return func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
		if r, ok := ctx.Value(fzRunsKey{}).(*fzRuns); ok {
			r.mu.Lock()
			r.names = append(r.names, name)
			r.mu.Unlock()
		}
		return registry.Result{Text: name + " ran"}, nil
	}
}

// fzPlan builds the fuzzers' world: the harness catalog and five MCP
// servers, every tool with a recording handler, seen through a mode that
// hides the kubernetes and playwright servers and most harness tools.
func fzPlan(t testing.TB) *deferral.Plan {
	t.Helper()
	reg := registry.New(nil)
	load := func(path string) *registry.Catalog {
		c, err := registry.LoadCatalog(path)
		require.NoError(t, err)
		var keep []registry.Tool
		for _, tl := range c.Tools {
			if c.Server == "" && strings.HasPrefix(tl.Name, toolname.MCPPrefix) {
				continue
			}
			name := tl.Name
			if c.Server != "" {
				name = toolname.MCPName(c.Server, tl.Name)
			}
			tl.Handler = fzHandler(name)
			keep = append(keep, tl)
		}
		c.Tools = keep
		return c
	}
	require.NoError(t, reg.Import(load("../testdata/fixtures/harness-catalog.json")))
	for _, s := range []string{"github", "filesystem", "memory", "kubernetes", "playwright"} {
		require.NoError(t, reg.Import(load(filepath.Join("..", "testdata", "catalogs", s+".tools.json"))))
	}
	pol := deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("fuzz", "Defer(mcp__*)", "NoDefer(mcp__github__get_*)")}}
	view := deferral.View{Mode: deferral.Mode{Name: "fuzz", Allow: []string{
		"Read", "Glob", "Grep", "WebFetch", "WebSearch", "ImageGen", "VideoGen", "CronList",
		"mcp__github__*", "mcp__filesystem__*", "mcp__memory__*",
	}}}
	plan, err := pol.Plan(reg.Snapshot(), view)
	require.NoError(t, err)
	require.Less(t, len(plan.Resident())+len(plan.Deferred()), len(plan.Snapshot().Tools()), "some tools are hidden")
	require.NotEmpty(t, plan.Deferred())
	require.NotEmpty(t, plan.Resident())
	return plan
}

// FuzzDeferExecute sends arbitrary arguments to defer_execute, and the same
// arguments as a direct call of an arbitrary name, in a session where some
// deferred tools are loaded. Whatever the input: no panic, a non-empty
// valid UTF-8 result, at most one handler run per call, never a hidden
// tool's handler, never an unloaded deferred tool's handler, never a
// denied tool's handler.
func FuzzDeferExecute(f *testing.F) {
	plan := fzPlan(f)
	d, err := execute.New(&execute.Options{Permissions: execute.MustPermissions("Deny(mcp__github__delete_*)", "Ask(mcp__memory__delete_*)")})
	require.NoError(f, err)
	deferred := plan.Deferred()
	for _, seed := range []struct {
		args, name string
		preload    uint8
	}{
		{`{"tool_name":"mcp__github__create_issue","params":{"owner":"o","repo":"r","title":"t"}}`, "Read", 0},
		{`{"tool_name":"mcp__github__create_issue","params":{"owner":"o","repo":"r","title":"t"}}`, "mcp__github__create_issue", 1},
		{`{"tool_name":"ImageGen","params":{"prompt":"a cat"}}`, "ImageGen", 2},
		{`{"tool_name":"mcp__memory__read_graph","params":{}}`, "mcp__memory__read_graph", 3},
		{`{"tool_name":"mcp__memory__read_graph"}`, "mcp__memory__delete_entities", 0},
		{`{"tool_name":"mcp__github__delete_file","params":{"owner":"o","repo":"r","path":"p","message":"m","branch":"b"}}`, "mcp__github__delete_file", 255},
		{`{"tool_name":"Bash","params":{"command":"rm -rf /"}}`, "Bash", 0},
		{`{"tool_name":"mcp__kubernetes__pods_list","params":{}}`, "mcp__kubernetes__pods_list", 1},
		{`{"tool_name":"mcp__playwright__browser_click","params":{"element":"x","ref":"y"}}`, "Write", 2},
		{`{"tool_name":"Read","params":{"file_path":"/etc/passwd"}}`, "Read", 0},
		{`{"tool_name":"defer_execute","params":{"tool_name":"Bash"}}`, "tool_search", 0},
		{`"{\"tool_name\":\"Bash\",\"params\":{}}"`, "defer_execute", 0},
		{`{"tool_name":"mcp__github__list_issues","owner":"o","repo":"r"}`, "mcp__github__list_issues", 3},
		{`{"tool_name":"ＩmageGen","params":{}}`, "\x00", 0},
		{`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, "", 0},
		{`{"tool_name":1e400}`, "mcp__", 0},
		{"\xff", "Read", 0},
	} {
		f.Add([]byte(seed.args), seed.name, seed.preload)
	}
	f.Fuzz(func(t *testing.T, args []byte, name string, preload uint8) {
		loaded := toolsearch.NewLoadedSet()
		for i, dt := range deferred {
			if (i+int(preload))%4 == 0 {
				loaded.Add(dt.Name)
			}
		}
		s := newTestSession("fuzz", plan, loaded)
		for _, target := range []string{registry.DeferExecuteName, name} {
			before := map[string]bool{}
			for _, n := range loaded.Names() {
				before[n] = true
			}
			runs := &fzRuns{}
			ctx := context.WithValue(context.Background(), fzRunsKey{}, runs)
			r := d.Call(ctx, s, target, args)
			if r.Text == "" || !utf8.ValidString(r.Text) {
				t.Fatalf("call of %q with %q: result %q is empty or not valid UTF-8", target, args, r.Text)
			}
			if len(runs.names) > 1 {
				t.Fatalf("call of %q with %q ran %d handlers: %v", target, args, len(runs.names), runs.names)
			}
			for _, n := range runs.names {
				switch plan.State(n) {
				case deferral.Hidden:
					t.Fatalf("call of %q with %q reached hidden tool %q", target, args, n)
				case deferral.Deferred:
					if !before[n] {
						t.Fatalf("call of %q with %q ran deferred tool %q before its schema was loaded", target, args, n)
					}
				}
				if strings.HasPrefix(n, "mcp__github__delete_") || strings.HasPrefix(n, "mcp__memory__delete_") {
					t.Fatalf("call of %q with %q ran %q, which a Deny or unanswered Ask rule covers", target, args, n)
				}
				if r.IsError {
					t.Fatalf("call of %q with %q ran %q but reports an error: %s", target, args, n, r.Text)
				}
			}
		}
		for _, n := range loaded.Names() {
			if plan.State(n) != deferral.Deferred {
				t.Fatalf("%q was marked loaded but is %v", n, plan.State(n))
			}
		}
	})
}

// FuzzResultTruncation bounds arbitrary handler output: the result is valid
// UTF-8 whenever the handler's text was, within the bound plus the note,
// and what is kept is a prefix of the handler's text cut at a rune
// boundary.
func FuzzResultTruncation(f *testing.F) {
	for _, seed := range []struct {
		text string
		max  uint16
	}{
		{"plain ascii output", 5},
		{"日本語の出力", 4},
		{"👩‍👩‍👧👩‍👩‍👧", 6},
		{strings.Repeat("é", 100), 51},
		{"\xff\xfe", 1},
		{"", 0},
	} {
		f.Add(seed.text, seed.max)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"cursor":{"type":"string"}}}`)
	f.Fuzz(func(t *testing.T, text string, max uint16) {
		limit := int(max%2048) + 1
		reg := registry.New(nil)
		require.NoError(t, reg.Register(registry.Tool{Name: "Out", Description: "Prints.", RawSchema: schema,
			Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
				return registry.Result{Text: text}, nil
			}}))
		plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{})
		require.NoError(t, err)
		d, err := execute.New(&execute.Options{MaxResultBytes: limit, Guidance: map[string]string{"Out": "Pass cursor for more."}})
		require.NoError(t, err)
		r := d.Call(context.Background(), newTestSession("t", plan, nil), "Out", json.RawMessage(`{}`))
		if !utf8.ValidString(r.Text) {
			t.Fatalf("limit %d: result of %q is not valid UTF-8: %q", limit, text, r.Text)
		}
		if !strings.HasSuffix(r.Text, "\n\nPass cursor for more.") {
			t.Fatalf("limit %d: guidance lost: %q", limit, r.Text)
		}
		// What the model may see of the handler's text: invalid bytes as
		// U+FFFD and wrapper tags neutralised, then cut to the limit.
		text = tagsafe.Neutralize(strings.ToValidUTF8(text, "\uFFFD"))
		if len(text) <= limit {
			return
		}
		kept, _, ok := strings.Cut(r.Text, "\n\n[Output truncated")
		if !ok {
			t.Fatalf("limit %d: %d bytes came back without the truncation note: %q", limit, len(text), r.Text)
		}
		if len(kept) > limit || !strings.HasPrefix(text, kept) {
			t.Fatalf("limit %d: kept %q is not a prefix of %q within the limit", limit, kept, text)
		}
		if rest := text[len(kept):]; rest != "" && !utf8.RuneStart(rest[0]) {
			t.Fatalf("limit %d: %q was cut inside a rune", limit, text)
		}
	})
}

// fzSelfSession is a session that holds one self-built tool, loaded.
type fzSelfSession struct{ tool *registry.Tool }

func (s *fzSelfSession) ID() string { return "self" }
func (s *fzSelfSession) Lookup(name string) (*registry.Tool, bool, bool) {
	if name == s.tool.Name {
		return s.tool, true, true
	}
	return nil, false, false
}
func (s *fzSelfSession) Loaded(string) bool     { return true }
func (s *fzSelfSession) MarkLoaded(string)      {}
func (s *fzSelfSession) VisibleNames() []string { return []string{s.tool.Name} }

// The dispatcher's schema cache used to key every tool by pointer, so a
// session's self-built tool — and through its handler, the session — stayed
// reachable after the session ended (found by the soak test). Self-built
// tools are now cached by name and schema only.
func TestSelfBuiltToolsDoNotOutliveTheirSession(t *testing.T) {
	d, err := execute.New(nil)
	require.NoError(t, err)
	var ptrs []weak.Pointer[registry.Tool]
	for i := range 10 {
		tl, err := registry.New(nil).CheckSelfBuilt(registry.Tool{Name: "chart", Description: "Chart.",
			RawSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
				return registry.Result{Text: "ok"}, nil
			}})
		require.NoError(t, err)
		s := &fzSelfSession{tool: &tl}
		r := d.Call(context.Background(), s, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"chart","params":{}}`))
		require.False(t, r.IsError, "call %d: %s", i, r.Text)
		ptrs = append(ptrs, weak.Make(s.tool))
	}
	runtime.GC()
	runtime.GC()
	for i, p := range ptrs {
		assert.Nil(t, p.Value(), "self-built tool %d is still reachable", i)
	}
	runtime.KeepAlive(d)
}

package execute_test

import (
	"context"
	"encoding/json"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// counter counts handler runs per tool and keeps the last params each saw.
type counter struct {
	mu     sync.Mutex
	n      map[string]int
	params map[string]string
}

func newCounter() *counter { return &counter{n: map[string]int{}, params: map[string]string{}} }

func (c *counter) handler(name string) registry.Handler {
	return func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
		c.mu.Lock()
		c.n[name]++
		c.params[name] = string(params)
		c.mu.Unlock()
		return registry.Result{Text: name + " ok"}, nil
	}
}

func (c *counter) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.n {
		n += v
	}
	return n
}

func (c *counter) last(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.params[name]
}

// harnessTools is a small default harness: the ask-mode readers, the
// writers, and deferred web, image and notification tools.
func harnessTools(c *counter) []registry.Tool {
	tool := func(name, schema string, d registry.DeferLoading) registry.Tool {
		return registry.Tool{Name: name, Description: name + " tool.", RawSchema: json.RawMessage(schema), DeferLoading: d, Handler: c.handler(name)}
	}
	notify := tool("Notify", `{"type":"object","properties":{"message":{"type":"string"},"auth_token":{"type":"string","description":"Bearer token."}},"required":["message","auth_token"]}`, registry.DeferTrue)
	notify.Injected = []string{"auth_token"}
	out := []registry.Tool{
		tool("Read", `{"type":"object","properties":{"file_path":{"type":"string"},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1}},"required":["file_path"],"additionalProperties":false}`, registry.DeferFalse),
		tool("Glob", `{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`, registry.DeferFalse),
		tool("Grep", `{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"output_mode":{"type":"string","enum":["content","files_with_matches","count"],"default":"files_with_matches"}},"required":["pattern"]}`, registry.DeferFalse),
		tool("WebFetch", `{"type":"object","properties":{"url":{"type":"string","format":"uri"},"prompt":{"type":"string"}},"required":["url","prompt"]}`, registry.DeferTrue),
		tool("WebSearch", `{"type":"object","properties":{"query":{"type":"string","minLength":2}},"required":["query"]}`, registry.DeferTrue),
		tool("Write", `{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}},"required":["file_path","content"]}`, registry.DeferFalse),
		tool("Edit", `{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"}},"required":["file_path","old_string","new_string"]}`, registry.DeferFalse),
		tool("Bash", `{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer","maximum":600000}},"required":["command"]}`, registry.DeferFalse),
		tool("ImageGen", `{"type":"object","properties":{"prompt":{"type":"string"},"size":{"type":"string","enum":["256","512","1024"]}},"required":["prompt"]}`, registry.DeferTrue),
		notify,
	}
	// The harness marks its readers read-only: the ask mode shows them.
	readOnly := true
	for i := range out[:5] {
		out[i].Annotations = &registry.Annotations{ReadOnlyHint: &readOnly}
	}
	return out
}

// env is a registry, a plan for a view, and sessions over it.
type env struct {
	reg  *registry.Registry
	plan *deferral.Plan
	c    *counter
}

func newEnv(t testing.TB, view deferral.View, skip ...string) *env {
	t.Helper()
	c := newCounter()
	reg := registry.New(nil)
	for _, tl := range harnessTools(c) {
		if contains(skip, tl.Name) {
			continue
		}
		require.NoError(t, reg.Register(tl))
	}
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), view)
	require.NoError(t, err)
	return &env{reg: reg, plan: plan, c: c}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// session returns a session with the given deferred tools already loaded.
func (e *env) session(id string, loaded ...string) *testSession {
	return newTestSession(id, e.plan, toolsearch.NewLoadedSet(loaded...))
}

func mustNew(t testing.TB, o *execute.Options) *execute.Dispatcher {
	t.Helper()
	d, err := execute.New(o)
	require.NoError(t, err)
	return d
}

// events collects events, safe for concurrent use.
type events struct {
	mu  sync.Mutex
	evs []execute.Event
}

func (e *events) add(ev execute.Event) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
}

func (e *events) kinds() []execute.EventKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]execute.EventKind, len(e.evs))
	for i, ev := range e.evs {
		out[i] = ev.Kind
	}
	return out
}

func (e *events) find(k execute.EventKind) (execute.Event, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.evs {
		if ev.Kind == k {
			return ev, true
		}
	}
	return execute.Event{}, false
}

func wrap(tool string, params string) json.RawMessage {
	return json.RawMessage(`{"tool_name":"` + tool + `","params":` + params + `}`)
}

package execute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// Injected fields: absent from the model's schema, filled by the host, and a
// model-supplied value is overwritten.
func TestInjectedFields(t *testing.T) {
	e := newEnv(t, deferral.View{})
	tl, _ := e.reg.Snapshot().Tool("Notify")
	require.NotContains(t, string(tl.ModelSchema()), "auth_token")

	inject := func(_ context.Context, s, tool string) (map[string]any, error) {
		return map[string]any{"auth_token": "tok-" + s + "-" + tool, "other": "ignored"}, nil
	}
	var evs events
	d := mustNew(t, &execute.Options{Inject: inject, Observer: execute.OnEvent(evs.add)})
	s := e.session("s1", "Notify")
	r := d.Call(context.Background(), s, registry.DeferExecuteName, wrap("Notify", `{"message":"hi","auth_token":"forged"}`))
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, `{"message":"hi","auth_token":"tok-s1-Notify"}`, e.c.last("Notify"))
	_, ok := evs.find(execute.EventInjectedIgnored)
	assert.True(t, ok)

	t.Run("host failure is not the model's", func(t *testing.T) {
		for name, o := range map[string]*execute.Options{
			"no injector": nil,
			"injector error": {Inject: func(context.Context, string, string) (map[string]any, error) {
				return nil, errors.New("vault sealed")
			}},
			"wrong type": {Inject: func(context.Context, string, string) (map[string]any, error) {
				return map[string]any{"auth_token": 42}, nil
			}},
		} {
			t.Run(name, func(t *testing.T) {
				e := newEnv(t, deferral.View{})
				var evs events
				if o == nil {
					o = &execute.Options{}
				}
				o.Observer = execute.OnEvent(evs.add)
				d := mustNew(t, o)
				r := d.Call(context.Background(), e.session("s", "Notify"), "Notify", json.RawMessage(`{"message":"hi"}`))
				assert.True(t, r.IsError)
				assert.Contains(t, r.Text, "not fixable by changing the params")
				assert.NotContains(t, r.Text, "auth_token", "the model never learns the host's fields")
				assert.Zero(t, e.c.count("Notify"))
				_, ok := evs.find(execute.EventHostError)
				assert.True(t, ok)
			})
		}
	})
}

func TestHookRewrite(t *testing.T) {
	rewrite := func(p string) execute.Hook {
		return execute.Hook{Name: "sandbox", Pattern: "Bash", Before: func(context.Context, *execute.Call) execute.Verdict {
			return execute.Verdict{Params: json.RawMessage(p)}
		}}
	}
	tests := []struct {
		name    string
		hook    execute.Hook
		wantRun string // params the handler saw; "" = did not run
	}{
		{"valid rewrite", rewrite(`{"command":"sandbox ls"}`), `{"command":"sandbox ls"}`},
		{"invalid rewrite is re-validated", rewrite(`{"command":7}`), ""},
		{"rewrite to non-object", rewrite(`"ls"`), ""},
		{"panicking hook fails closed", execute.Hook{Name: "boom", Before: func(context.Context, *execute.Call) execute.Verdict { panic("boom") }}, ""},
		{"continue", execute.Hook{Name: "noop", Before: func(context.Context, *execute.Call) execute.Verdict { return execute.Verdict{} }}, `{"command":"ls"}`},
		{"block without reason", execute.Hook{Name: "no", Before: func(context.Context, *execute.Call) execute.Verdict { return execute.Verdict{Block: true} }}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, deferral.View{})
			var evs events
			d := mustNew(t, &execute.Options{Hooks: []execute.Hook{tt.hook}, Observer: execute.OnEvent(evs.add)})
			r := d.Call(context.Background(), e.session("s"), "Bash", json.RawMessage(`{"command":"ls"}`))
			if tt.wantRun == "" {
				assert.True(t, r.IsError)
				assert.Zero(t, e.c.count("Bash"))
				return
			}
			require.False(t, r.IsError, r.Text)
			assert.Equal(t, tt.wantRun, e.c.last("Bash"))
			if tt.wantRun != `{"command":"ls"}` {
				ev, ok := evs.find(execute.EventRewritten)
				require.True(t, ok)
				assert.Equal(t, "sandbox", ev.Hook)
				assert.Equal(t, "Bash", ev.Tool)
			}
		})
	}
}

func TestAfterHooksAndGuidance(t *testing.T) {
	e := newEnv(t, deferral.View{})
	var evs events
	d := mustNew(t, &execute.Options{
		Hooks: []execute.Hook{
			{Name: "annotate", After: func(_ context.Context, c *execute.Call, r registry.Result) registry.Result {
				r.Text += " [checked " + c.Name + "]"
				return r
			}},
			{Name: "panics", After: func(context.Context, *execute.Call, registry.Result) registry.Result { panic("x") }},
		},
		Guidance:       map[string]string{"WebSearch": "Results are paged: pass cursor to continue."},
		MaxResultBytes: 10,
		Observer:       execute.OnEvent(evs.add),
	})
	r := d.Call(context.Background(), e.session("s", "WebSearch"), registry.DeferExecuteName, wrap("WebSearch", `{"query":"go"}`))
	require.False(t, r.IsError, r.Text)
	assert.True(t, strings.HasPrefix(r.Text, "WebSearch "), r.Text)
	assert.Contains(t, r.Text, fmt.Sprintf("[Output truncated: showing the first 10 of %d bytes", len("WebSearch ok [checked WebSearch]")))
	assert.True(t, strings.HasSuffix(r.Text, "\n\nResults are paged: pass cursor to continue."), "guidance survives truncation: %q", r.Text)
	ev, ok := evs.find(execute.EventReplaced)
	require.True(t, ok)
	assert.Equal(t, "annotate", ev.Hook)
}

func TestTruncationRuneBoundaryAndPaging(t *testing.T) {
	text := strings.Repeat("é", 100) // 200 bytes
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{
		Name:      "Log",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"offset":{"type":"integer"},"limit":{"type":"integer"}}}`),
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: text}, nil
		},
	}))
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	e := &env{reg: reg, plan: plan}
	for _, max := range []int{1, 2, 3, 51, 199} {
		d := mustNew(t, &execute.Options{MaxResultBytes: max})
		r := d.Call(context.Background(), e.session("s"), "Log", nil)
		require.True(t, utf8.ValidString(r.Text))
		head, note, ok := strings.Cut(r.Text, "\n\n[Output truncated")
		require.True(t, ok)
		assert.LessOrEqual(t, len(head), max)
		assert.Equal(t, max/2*2, len(head))
		assert.Contains(t, note, `(it accepts "offset", "limit")`)
	}
	d := mustNew(t, &execute.Options{MaxResultBytes: -1})
	assert.Equal(t, text, d.Call(context.Background(), e.session("s"), "Log", nil).Text)
}

type ctxKey struct{}

func TestHandlerOutcomes(t *testing.T) {
	var seen any
	tests := []struct {
		name    string
		handler registry.Handler
		ctx     context.Context
		want    registry.Result
		kind    execute.EventKind
	}{
		{"ok with caller's context", func(ctx context.Context, _ json.RawMessage) (registry.Result, error) {
			seen = ctx.Value(ctxKey{})
			return registry.Result{Text: "done"}, nil
		}, context.WithValue(context.Background(), ctxKey{}, "v"), registry.Result{Text: "done"}, execute.EventCompleted},
		{"panic", func(context.Context, json.RawMessage) (registry.Result, error) { panic("nil map") }, context.Background(),
			registry.Result{Text: `Tool "T" failed with an internal error; nothing more is known. You may retry once with different params, or use another tool.`, IsError: true}, execute.EventPanic},
		{"error", func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{}, errors.New("disk full")
		}, context.Background(),
			registry.Result{Text: "Error: disk full", IsError: true}, execute.EventHandlerError},
		{"nil handler", nil, context.Background(),
			registry.Result{Text: `Tool "T" has no implementation in this harness, so it cannot be called here. Nothing was run; use another tool.`, IsError: true}, execute.EventNoHandler},
		{"cancelled", func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "ran"}, nil
		}, cancelled(),
			registry.Result{Text: `The call of "T" was cancelled before it ran (context canceled).`, IsError: true}, execute.EventHandlerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := registry.New(nil)
			require.NoError(t, reg.Register(registry.Tool{Name: "T", Handler: tt.handler}))
			plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{})
			require.NoError(t, err)
			var evs events
			d := mustNew(t, &execute.Options{Observer: execute.OnEvent(evs.add)})
			var r registry.Result
			require.NotPanics(t, func() { r = d.Call(tt.ctx, (&env{plan: plan}).session("s"), "T", json.RawMessage(`{}`)) })
			assert.Equal(t, tt.want, r)
			_, ok := evs.find(tt.kind)
			assert.True(t, ok, "event %v in %v", tt.kind, evs.kinds())
		})
	}
	assert.Equal(t, "v", seen)
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// Every decision reaches log/slog with the target's name.
func TestSlog(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := newEnv(t, deferral.View{})
	d := mustNew(t, &execute.Options{Observer: execute.LogEvents(log), Permissions: execute.MustPermissions("Deny(ImageGen)")})
	d.Call(context.Background(), e.session("s9", "ImageGen"), registry.DeferExecuteName, wrap("ImageGen", `{"prompt":"x"}`))
	out := buf.String()
	assert.Contains(t, out, `msg="execute: denied" session=s9 tool=ImageGen via=defer_execute rule=Deny(ImageGen)`)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestNewRejectsBadRules(t *testing.T) {
	for _, o := range []execute.Options{
		{Permissions: []execute.Permission{{Action: execute.Deny, Pattern: "a b"}}},
		{Permissions: []execute.Permission{{Action: 9, Pattern: "x"}}},
		{Permissions: []execute.Permission{{Action: execute.Allow}}},
		{Hooks: []execute.Hook{{Name: "h", Pattern: "(x)"}}},
		{Default: 7},
	} {
		_, err := execute.New(&o)
		assert.ErrorIs(t, err, execute.ErrPermission)
	}
	for _, s := range []string{"Deny", "Block(x)", "Allow()", "Ask(a/b)"} {
		_, err := execute.ParsePermission(s)
		assert.ErrorIs(t, err, execute.ErrPermission, s)
	}
	r, err := execute.ParsePermission(" Ask(mcp__github__*) ")
	require.NoError(t, err)
	assert.Equal(t, execute.Permission{Action: execute.Ask, Pattern: "mcp__github__*"}, r)
}

// 100 goroutines in 10 sessions: loaded sets stay per session, counts add
// up, and the race detector stays quiet.
func TestConcurrentSessions(t *testing.T) {
	e := newEnv(t, deferral.View{})
	var evs events
	var asked sync.Map
	d := mustNew(t, &execute.Options{
		Permissions: execute.MustPermissions("Deny(ImageGen)", "Ask(Bash)"),
		Ask: func(_ context.Context, r execute.AskRequest) (bool, error) {
			asked.Store(r.Session, true)
			return true, nil
		},
		Inject: func(_ context.Context, s, _ string) (map[string]any, error) {
			return map[string]any{"auth_token": s}, nil
		},
		Observer: execute.OnEvent(evs.add),
		Hooks: []execute.Hook{{Name: "count", After: func(_ context.Context, c *execute.Call, r registry.Result) registry.Result {
			return r
		}}},
	})
	sessions := make([]*testSession, 10)
	for i := range sessions {
		sessions[i] = e.session(fmt.Sprintf("s%d", i))
	}
	var wg sync.WaitGroup
	for g := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := sessions[g%10]
			ctx := context.Background()
			for range 5 {
				d.Call(ctx, s, "Read", json.RawMessage(`{"file_path":"a"}`))
				d.Call(ctx, s, registry.DeferExecuteName, wrap("WebSearch", `{"query":"go"}`))
				d.Call(ctx, s, registry.DeferExecuteName, wrap("ImageGen", `{"prompt":"x"}`))
				d.Call(ctx, s, "Bash", json.RawMessage(`{"command":"ls"}`))
				d.Call(ctx, s, registry.DeferExecuteName, wrap("Notify", `{"message":"m"}`))
				d.Call(ctx, s, "Grep", json.RawMessage(`{"pattern":"p"}`))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 500, e.c.count("Read"))
	assert.Equal(t, 500, e.c.count("Bash"))
	assert.Equal(t, 500, e.c.count("Grep"))
	assert.Zero(t, e.c.count("ImageGen"))
	// Each session's first WebSearch and Notify are refused as unloaded (or
	// several first calls, when they race to the loaded set); the denied
	// ImageGen is refused before its schema is looked at, never loaded.
	unloaded := 0
	for _, k := range evs.kinds() {
		if k == execute.EventUnloaded {
			unloaded++
		}
	}
	assert.GreaterOrEqual(t, unloaded, 20)
	assert.Zero(t, countUnloaded(&evs, "ImageGen"))
	assert.Equal(t, 1000, e.c.count("WebSearch")+e.c.count("Notify")+unloaded)
	for _, s := range sessions {
		assert.Equal(t, []string{"Notify", "WebSearch"}, s.LoadedSet().Names())
		_, ok := asked.Load(s.ID())
		assert.True(t, ok)
	}
}

func countUnloaded(evs *events, tool string) int {
	evs.mu.Lock()
	defer evs.mu.Unlock()
	n := 0
	for _, ev := range evs.evs {
		if ev.Kind == execute.EventUnloaded && ev.Tool == tool {
			n++
		}
	}
	return n
}

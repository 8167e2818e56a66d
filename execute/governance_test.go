package execute_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// Ask mode end to end: Write, Edit and Bash are hidden; neither
// defer_execute nor a direct call reaches their handlers, and the answer is
// the one an unregistered tool gets.
func TestAskModeHidesWriters(t *testing.T) {
	e := newEnv(t, deferral.View{Mode: deferral.Mode{Name: "ask", ReadOnly: true}})
	// The same visible world, but the writers never existed.
	absent := newEnv(t, deferral.View{Mode: deferral.Mode{Name: "ask", ReadOnly: true}}, "Write", "Edit", "Bash", "ImageGen", "Notify")
	require.Equal(t, e.session("s").VisibleNames(), absent.session("s").VisibleNames())

	var evs events
	d := mustNew(t, &execute.Options{Observer: execute.OnEvent(evs.add)})
	for _, name := range []string{"Write", "Edit", "Bash", "ImageGen"} {
		t.Run(name, func(t *testing.T) {
			s := e.session("ask", name) // even "loaded" changes nothing
			params := `{"file_path":"/etc/passwd","content":"x","command":"rm -rf /","old_string":"a","new_string":"b","prompt":"p"}`
			wrapped := d.Call(context.Background(), s, registry.DeferExecuteName, wrap(name, params))
			direct := d.Call(context.Background(), s, name, json.RawMessage(params))
			assert.True(t, wrapped.IsError)
			assert.True(t, direct.IsError)
			assert.Contains(t, wrapped.Text, "Unknown tool")
			assert.Contains(t, direct.Text, "Unknown tool")

			// Indistinguishable from a tool that does not exist.
			s2 := absent.session("ask")
			assert.Equal(t, wrapped.Text, d.Call(context.Background(), s2, registry.DeferExecuteName, wrap(name, params)).Text)
			assert.Equal(t, direct.Text, d.Call(context.Background(), s2, name, json.RawMessage(params)).Text)
		})
	}
	assert.Zero(t, e.c.total(), "no hidden handler may run")
	ev, ok := evs.find(execute.EventUnknownTool)
	require.True(t, ok)
	assert.Equal(t, "Write", ev.Tool)
	assert.NotContains(t, evs.kinds(), execute.EventAllowed)

	// The visible tools still work in the same session.
	r := d.Call(context.Background(), e.session("ask"), "Read", json.RawMessage(`{"file_path":"a.go"}`))
	assert.False(t, r.IsError, r.Text)
	assert.Equal(t, 1, e.c.count("Read"))
}

// Permission is evaluated on the target's name, for wrapped calls too.
func TestPermissionSeesTarget(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		opts    execute.Options
		wantRun bool
		rule    string
	}{
		{"deny on target blocks wrapper", execute.Options{Permissions: execute.MustPermissions("Deny(ImageGen)")}, false, "Deny(ImageGen)"},
		{"deny by pattern", execute.Options{Permissions: execute.MustPermissions("Deny(Image*)")}, false, "Deny(Image*)"},
		{"allow on target under deny default", execute.Options{Default: execute.Deny, Permissions: execute.MustPermissions("Allow(ImageGen)")}, true, "Allow(ImageGen)"},
		{"a rule on the wrapper name does not allow the target", execute.Options{Default: execute.Deny, Permissions: execute.MustPermissions("Allow(defer_execute)")}, false, "default"},
		{"deny beats allow", execute.Options{Permissions: execute.MustPermissions("Allow(*)", "Deny(ImageGen)", "Allow(ImageGen)")}, false, "Deny(ImageGen)"},
		{"ask beats allow, no approver rejects", execute.Options{Permissions: execute.MustPermissions("Allow(ImageGen)", "Ask(Image*)")}, false, "Ask(Image*)"},
		{"deny beats ask", execute.Options{Permissions: execute.MustPermissions("Ask(*)", "Deny(ImageGen)"), Ask: approve(true)}, false, "Deny(ImageGen)"},
		{"ask approved", execute.Options{Permissions: execute.MustPermissions("Ask(ImageGen)"), Ask: approve(true)}, true, "Ask(ImageGen)"},
		{"ask rejected", execute.Options{Permissions: execute.MustPermissions("Ask(ImageGen)"), Ask: approve(false)}, false, "Ask(ImageGen)"},
		{"default allow", execute.Options{}, true, "default"},
		{"default deny", execute.Options{Default: execute.Deny}, false, "default"},
		{"default ask approved", execute.Options{Default: execute.Ask, Ask: approve(true)}, true, "default"},
	}
	for _, tt := range tests {
		for _, via := range []string{"wrapped", "direct"} {
			t.Run(tt.name+"/"+via, func(t *testing.T) {
				e := newEnv(t, deferral.View{})
				var evs events
				o := tt.opts
				o.Observer = execute.OnEvent(evs.add)
				d := mustNew(t, &o)
				s := e.session("s", "ImageGen")
				var r registry.Result
				if via == "wrapped" {
					r = d.Call(ctx, s, registry.DeferExecuteName, wrap("ImageGen", `{"prompt":"a cat"}`))
				} else {
					r = d.Call(ctx, s, "ImageGen", json.RawMessage(`{"prompt":"a cat"}`))
				}
				if tt.wantRun {
					assert.False(t, r.IsError, r.Text)
					assert.Equal(t, 1, e.c.count("ImageGen"))
				} else {
					assert.True(t, r.IsError)
					assert.Zero(t, e.c.count("ImageGen"), r.Text)
				}
				var decided execute.Event
				for _, k := range []execute.EventKind{execute.EventAllowed, execute.EventApproved, execute.EventRejected, execute.EventDenied} {
					if ev, ok := evs.find(k); ok {
						decided = ev
					}
				}
				assert.Equal(t, "ImageGen", decided.Tool)
				assert.Equal(t, tt.rule, decided.Rule)
				if via == "wrapped" {
					assert.Equal(t, registry.DeferExecuteName, decided.Via)
				}
			})
		}
	}
}

func approve(yes bool) execute.Approver {
	return func(context.Context, execute.AskRequest) (bool, error) { return yes, nil }
}

// The approver sees the target, the wrapper, and params without host fields.
func TestAskRequest(t *testing.T) {
	e := newEnv(t, deferral.View{})
	var got execute.AskRequest
	d := mustNew(t, &execute.Options{
		Permissions: execute.MustPermissions("Ask(Notify)"),
		Ask:         func(_ context.Context, r execute.AskRequest) (bool, error) { got = r; return true, nil },
		Inject: func(context.Context, string, string) (map[string]any, error) {
			return map[string]any{"auth_token": "secret"}, nil
		},
	})
	r := d.Call(context.Background(), e.session("s7", "Notify"), registry.DeferExecuteName, wrap("Notify", `{"message":"hi"}`))
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, "s7", got.Session)
	assert.Equal(t, "Notify", got.Tool)
	assert.Equal(t, registry.DeferExecuteName, got.Via)
	assert.JSONEq(t, `{"message":"hi"}`, string(got.Params))
	assert.Equal(t, "Ask(Notify)", got.Rule.String())
	assert.JSONEq(t, `{"message":"hi","auth_token":"secret"}`, e.c.last("Notify"))

	d = mustNew(t, &execute.Options{Default: execute.Ask, Ask: func(context.Context, execute.AskRequest) (bool, error) {
		return true, assert.AnError
	}})
	r = d.Call(context.Background(), e.session("s"), "Read", json.RawMessage(`{"file_path":"a"}`))
	assert.True(t, r.IsError, "an approver error is a rejection")
	assert.Contains(t, r.Text, "did not approve")
	assert.Zero(t, e.c.count("Read"))
}

// Hooks see the target's name, never the wrapper's.
func TestHooksSeeTarget(t *testing.T) {
	e := newEnv(t, deferral.View{})
	var before, after []string
	var sessions []string
	d := mustNew(t, &execute.Options{Hooks: []execute.Hook{{
		Name: "audit",
		Before: func(_ context.Context, c *execute.Call) execute.Verdict {
			before = append(before, c.Name+"|"+c.Via)
			sessions = append(sessions, c.Session)
			return execute.Verdict{}
		},
		After: func(_ context.Context, c *execute.Call, r registry.Result) registry.Result {
			after = append(after, c.Name)
			return r
		},
	}, {
		Name:    "image-only",
		Pattern: "Image*",
		Before: func(_ context.Context, c *execute.Call) execute.Verdict {
			return execute.Verdict{Block: true, Reason: "image generation is paused"}
		},
	}}})
	s := e.session("h1", "WebSearch", "ImageGen")
	r := d.Call(context.Background(), s, registry.DeferExecuteName, wrap("WebSearch", `{"query":"go"}`))
	require.False(t, r.IsError, r.Text)
	r = d.Call(context.Background(), s, "Read", json.RawMessage(`{"file_path":"x"}`))
	require.False(t, r.IsError, r.Text)
	r = d.Call(context.Background(), s, registry.DeferExecuteName, wrap("ImageGen", `{"prompt":"x"}`))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Text, "image generation is paused")
	assert.Zero(t, e.c.count("ImageGen"), "a hook matched by the target's name blocks the wrapped call")

	assert.Equal(t, []string{"WebSearch|defer_execute", "Read|", "ImageGen|defer_execute"}, before)
	assert.Equal(t, []string{"WebSearch", "Read"}, after)
	assert.Equal(t, []string{"h1", "h1", "h1"}, sessions)
}

// A deferred tool never runs before its schema is loaded; the refusal
// carries the schema and loads it, so the next call runs.
func TestUnloadedDeferredTool(t *testing.T) {
	for _, via := range []string{"wrapped", "direct"} {
		t.Run(via, func(t *testing.T) {
			e := newEnv(t, deferral.View{})
			var evs events
			d := mustNew(t, &execute.Options{Observer: execute.OnEvent(evs.add)})
			s := e.session("s")
			call := func(params string) registry.Result {
				if via == "wrapped" {
					return d.Call(context.Background(), s, registry.DeferExecuteName, wrap("WebFetch", params))
				}
				return d.Call(context.Background(), s, "WebFetch", json.RawMessage(params))
			}
			require.False(t, s.Loaded("WebFetch"))
			r := call(`{"url":"https://go.dev"}`)
			assert.True(t, r.IsError)
			assert.Zero(t, e.c.count("WebFetch"), "ran unloaded")
			tl, _ := e.reg.Snapshot().Tool("WebFetch")
			assert.Contains(t, r.Text, string(tl.ModelSchema()), "the refusal carries the schema")
			assert.Contains(t, r.Text, "/prompt: required property is missing", "and what is wrong with the call")
			assert.True(t, s.Loaded("WebFetch"), "the schema counts as loaded")
			ev, ok := evs.find(execute.EventUnloaded)
			require.True(t, ok)
			assert.Equal(t, "WebFetch", ev.Tool)

			r = call(`{"url":"https://go.dev","prompt":"summarize"}`)
			assert.False(t, r.IsError, r.Text)
			assert.Equal(t, 1, e.c.count("WebFetch"))
		})
	}
	// A resident tool needs no loading.
	e := newEnv(t, deferral.View{})
	d := mustNew(t, nil)
	r := d.Call(context.Background(), e.session("s"), "Glob", json.RawMessage(`{"pattern":"*.go"}`))
	assert.False(t, r.IsError, r.Text)
}

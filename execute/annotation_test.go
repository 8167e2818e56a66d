package execute_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// annotated is a session over a trusted server's reader and destructive
// tool, and an untrusted server whose tools all claim to be read-only.
func annotated(t *testing.T, ran *atomic.Int32) *testSession {
	t.Helper()
	yes, no := true, false
	h := func(context.Context, json.RawMessage) (registry.Result, error) {
		ran.Add(1)
		return registry.Result{Text: "done"}, nil
	}
	r := registry.New(nil)
	require.NoError(t, r.AddGroup(registry.Group{Name: "db", TrustAnnotations: true}))
	require.NoError(t, r.AddGroup(registry.Group{Name: "liar"}))
	require.NoError(t, r.Register(
		registry.Tool{Group: "db", Name: "query", Annotations: &registry.Annotations{ReadOnlyHint: &yes}, Handler: h},
		registry.Tool{Group: "db", Name: "drop_table", Annotations: &registry.Annotations{ReadOnlyHint: &no, DestructiveHint: &yes}, Handler: h},
		registry.Tool{Group: "db", Name: "upsert", Annotations: &registry.Annotations{DestructiveHint: &no, IdempotentHint: &yes}, Handler: h},
		registry.Tool{Group: "liar", Name: "wipe", Annotations: &registry.Annotations{ReadOnlyHint: &yes, DestructiveHint: &no}, Handler: h},
	))
	plan, err := (&deferral.Policy{}).Plan(r.Snapshot(), deferral.View{})
	require.NoError(t, err)
	return newTestSession("s", plan, nil)
}

// TestRuleByAnnotation: Ask(@destructive) decides the destructive tool's
// call (approver asked, with the rule), Allow(@readonly) under a Deny
// default lets the reader run and the rest not, and an untrusted server's
// read-only claim neither escapes Ask(@destructive) nor earns
// Allow(@readonly).
func TestRuleByAnnotation(t *testing.T) {
	ctx := context.Background()
	var ran atomic.Int32
	s := annotated(t, &ran)
	var asked []string
	d := mustNew(t, &execute.Options{
		Permissions: execute.MustPermissions("Ask(@destructive)"),
		Ask: func(_ context.Context, r execute.AskRequest) (bool, error) {
			asked = append(asked, r.Tool+" "+r.Rule.String())
			return false, nil
		},
	})
	for _, n := range []string{"mcp__db__drop_table", "mcp__liar__wipe", "mcp__db__query", "mcp__db__upsert"} {
		d.Call(ctx, s, n, json.RawMessage(`{}`))
	}
	assert.Equal(t, []string{"mcp__db__drop_table Ask(@destructive)", "mcp__liar__wipe Ask(@destructive)"}, asked)
	assert.Equal(t, int32(2), ran.Load(), "query and upsert ran; the destructive ones were refused")

	ran.Store(0)
	var evs events
	d = mustNew(t, &execute.Options{Default: execute.Deny, Permissions: execute.MustPermissions("Allow(@readonly)"), Observer: execute.OnEvent(evs.add)})
	got := map[string]bool{}
	for _, n := range []string{"mcp__db__query", "mcp__db__drop_table", "mcp__liar__wipe", "mcp__db__upsert"} {
		got[n] = !d.Call(ctx, s, n, json.RawMessage(`{}`)).IsError
	}
	assert.Equal(t, map[string]bool{"mcp__db__query": true, "mcp__db__drop_table": false, "mcp__liar__wipe": false, "mcp__db__upsert": false}, got)
	assert.Equal(t, int32(1), ran.Load())
	ev, ok := evs.find(execute.EventAllowed)
	require.True(t, ok)
	assert.Equal(t, "Allow(@readonly)", ev.Rule)

	// Deny by annotation: denied, and Denied says so for the index.
	d = mustNew(t, &execute.Options{Permissions: execute.MustPermissions("Deny(@destructive)", "Allow(@idempotent)")})
	r := d.Call(ctx, s, "mcp__db__drop_table", json.RawMessage(`{}`))
	assert.Contains(t, r.Text, "Permission denied")
	drop, _, _ := s.Lookup("mcp__db__drop_table")
	rule, denied := d.Denied(drop)
	assert.True(t, denied)
	assert.Equal(t, "Deny(@destructive)", rule)
	q, _, _ := s.Lookup("mcp__db__query")
	_, denied = d.Denied(q)
	assert.False(t, denied)
}

// TestHookByAnnotation: a hook pattern may select by annotation too.
func TestHookByAnnotation(t *testing.T) {
	var ran atomic.Int32
	s := annotated(t, &ran)
	var hooked []string
	d := mustNew(t, &execute.Options{Hooks: []execute.Hook{{Name: "audit-writes", Pattern: "@destructive", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
		hooked = append(hooked, c.Name)
		return execute.Verdict{}
	}}}})
	for _, n := range []string{"mcp__db__query", "mcp__db__drop_table", "mcp__liar__wipe"} {
		d.Call(context.Background(), s, n, json.RawMessage(`{}`))
	}
	assert.Equal(t, []string{"mcp__db__drop_table", "mcp__liar__wipe"}, hooked)
}

func TestParseAnnotationRule(t *testing.T) {
	for _, ok := range []string{"Ask(@destructive)", "Allow(@readonly)", "Deny(@openworld)", "Allow( @idempotent )"} {
		_, err := execute.ParsePermission(ok)
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"Ask(@Destructive)", "Allow(@read_only)", "Deny(@)", "Deny(@destructive*)", "Ask(mcp__x__@destructive)"} {
		_, err := execute.ParsePermission(bad)
		assert.ErrorIs(t, err, execute.ErrPermission, bad)
	}
	_, err := execute.New(&execute.Options{Hooks: []execute.Hook{{Name: "h", Pattern: "@writes"}}})
	assert.ErrorIs(t, err, execute.ErrPermission)
}

func TestEventString(t *testing.T) {
	for _, c := range []struct {
		ev   execute.Event
		want string
	}{
		{execute.Event{Kind: execute.EventApproved, Session: "s-openai-chat", Tool: "mcp__github__create_pull_request", Via: "defer_execute", Rule: "Ask(mcp__github__create_*)", CallID: "call_9"},
			"approved mcp__github__create_pull_request via defer_execute by Ask(mcp__github__create_*) (session s-openai-chat, call call_9)"},
		{execute.Event{Kind: execute.EventInvalid, Session: "s1", Tool: "Read", Pointer: "/offset", Detail: "/offset: minimum: -1 is less than 0"},
			`invalid Read at "/offset": "/offset: minimum: -1 is less than 0" (session s1)`},
		{execute.Event{Kind: execute.EventUnknownTool, Tool: "rm -rf\n/"}, `unknown_tool "rm -rf\n/"`},
		{execute.Event{Kind: execute.EventSearched, Tool: "tool_search", Queries: []string{"create pr", "select:a,b"}, Loaded: []string{"a", "b"}},
			`searched tool_search queries ["create pr", "select:a,b"] loaded [a, b]`},
	} {
		assert.Equal(t, c.want, c.ev.String())
	}
}

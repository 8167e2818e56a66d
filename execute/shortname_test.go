package execute_test

import (
	"context"
	"encoding/json"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// TestDeferExecuteShortNames: defer_execute takes a short name that is one
// visible tool's alone to that tool (the guards and events see its full
// name), answers an ambiguous one with the candidates, runs a full name as
// itself, and never reaches a hidden tool through its short name.
func TestDeferExecuteShortNames(t *testing.T) {
	reg := registry.New(nil)
	ran := map[string]int{}
	tool := func(name string) registry.Tool {
		return registry.Tool{Name: name, Description: "Tool " + name + ".", RawSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
				ran[name]++
				return registry.Result{Text: "ran " + name}, nil
			}}
	}
	require.NoError(t, reg.Register(tool("Read")))
	for srv, names := range map[string][]string{"github": {"create_issue", "get_me", "secret"}, "gitlab": {"create_issue"}, "fs": {"Read"}} {
		require.NoError(t, reg.AddGroup(registry.Group{Name: srv}))
		for _, n := range names {
			tl := tool(srv + "/" + n)
			tl.Name, tl.Group = n, srv
			require.NoError(t, reg.Register(tl))
		}
	}
	view := deferral.View{Mode: deferral.Mode{Name: "no-secret", Allow: []string{"Read", "mcp__github__create_issue", "mcp__github__get_me", "mcp__gitlab__create_issue", "mcp__fs__Read"}}}
	plan, err := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), view)
	require.NoError(t, err)
	var events []execute.Event
	d, err := execute.New(&execute.Options{Observer: execute.OnEvent(func(e execute.Event) { events = append(events, e) })})
	require.NoError(t, err)
	loaded := toolsearch.NewLoadedSet()
	for _, n := range []string{"Read", "mcp__github__get_me", "mcp__github__create_issue", "mcp__gitlab__create_issue", "mcp__fs__Read"} {
		loaded.Add(n)
	}
	s := newTestSession("s", plan, loaded)
	call := func(name string) registry.Result {
		return d.Call(t.Context(), s, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+name+`","params":{}}`))
	}

	events = nil
	r := call("get_me")
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, "ran github/get_me", r.Text)
	for _, e := range events {
		assert.Equal(t, "mcp__github__get_me", e.Tool, "events name the full name")
	}

	r = call("create_issue")
	assert.True(t, r.IsError)
	assert.Contains(t, r.Text, `"create_issue" is the short name of 2 tools: "mcp__github__create_issue", "mcp__gitlab__create_issue". Nothing was run.`)

	r = call("Read")
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, "ran Read", r.Text, "a full name means itself")

	r = call("secret")
	assert.True(t, r.IsError)
	assert.Contains(t, r.Text, `Unknown tool "secret".`)
	assert.NotContains(t, r.Text, "mcp__github__secret", "a hidden tool is not a candidate")

	// A direct call (not through defer_execute) is by full name only.
	r = d.Call(t.Context(), s, "get_me", json.RawMessage(`{}`))
	assert.True(t, r.IsError)
	assert.Equal(t, map[string]int{"github/get_me": 1, "Read": 1}, ran)
}

package execute_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// TestLoadAnswersToSearchGuard (issue 42): a load the session makes on
// its own (Dispatcher.Load) passes tool_search's guard: Deny(tool_search)
// refuses it without running it; a before-hook on tool_search sees the
// names as {"tool_names": [...]} and may narrow them; the "searched"
// event carries the names loaded and a Detail that starts with the
// load's reason.
func TestLoadAnswersToSearchGuard(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(
		registry.Tool{Name: "alpha_tool", Description: "Alpha.", RawSchema: json.RawMessage(`{"type":"object"}`), DeferLoading: registry.DeferTrue},
		registry.Tool{Name: "beta_tool", Description: "Beta.", RawSchema: json.RawMessage(`{"type":"object"}`), DeferLoading: registry.DeferTrue},
	))
	plan, err := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	s := newTestSession("s1", plan, nil)
	run := func(ran *[]string) execute.SearchFunc {
		return func(_ context.Context, args json.RawMessage) (registry.Result, []string) {
			var a struct {
				ToolNames []string `json:"tool_names"`
			}
			require.NoError(t, json.Unmarshal(args, &a))
			*ran = a.ToolNames
			return registry.Result{Text: "loaded " + strings.Join(a.ToolNames, ",")}, a.ToolNames
		}
	}
	names := []string{"alpha_tool", "beta_tool"}

	deny, err := execute.New(&execute.Options{Permissions: execute.MustPermissions("Deny(tool_search)")})
	require.NoError(t, err)
	var ran []string
	res := deny.Load(context.Background(), s, "preload", names, run(&ran))
	assert.True(t, res.IsError, res.Text)
	assert.Nil(t, ran, "a denied load never runs")

	var mu sync.Mutex
	var events []execute.Event
	var seen json.RawMessage
	d, err := execute.New(&execute.Options{
		Hooks: []execute.Hook{{Name: "narrow", Pattern: registry.ToolSearchName, Before: func(_ context.Context, c *execute.Call) execute.Verdict {
			seen = c.Params
			return execute.Verdict{Params: json.RawMessage(`{"tool_names":["beta_tool"]}`)}
		}}},
		Observer: execute.OnEvent(func(ev execute.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, ev)
		}),
	})
	require.NoError(t, err)
	res = d.Load(context.Background(), s, "restore", names, run(&ran))
	require.False(t, res.IsError, res.Text)
	assert.JSONEq(t, `{"tool_names":["alpha_tool","beta_tool"]}`, string(seen), "the hook sees the names")
	assert.Equal(t, []string{"beta_tool"}, ran, "the hook narrowed them")
	mu.Lock()
	defer mu.Unlock()
	var searched []execute.Event
	for _, ev := range events {
		if ev.Kind == execute.EventSearched {
			searched = append(searched, ev)
		}
	}
	require.Len(t, searched, 1)
	assert.Equal(t, []string{"beta_tool"}, searched[0].Loaded)
	assert.Equal(t, "s1", searched[0].Session)
	assert.True(t, strings.HasPrefix(searched[0].Detail, "restore "), searched[0].Detail)
}

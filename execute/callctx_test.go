package execute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// whoami answers with the call its context carries.
func whoami(ctx context.Context, _ json.RawMessage) (registry.Result, error) {
	c, ok := execute.CallFromContext(ctx)
	if !ok {
		return registry.Result{}, fmt.Errorf("no call in the handler's context")
	}
	b, err := json.Marshal(map[string]string{"session": c.Session, "name": c.Name, "via": c.Via, "id": c.ID})
	return registry.Result{Text: string(b)}, err
}

// TestCallFromContextManySessions: one registry, one dispatcher, one
// handler, 100 sessions calling at once, directly and through
// defer_execute: each handler run reads its own session ID, the tool name
// the model asked for and the call ID from its context.
func TestCallFromContextManySessions(t *testing.T) {
	reg := registry.New(nil)
	obj := json.RawMessage(`{"type":"object"}`)
	require.NoError(t, reg.Register(
		registry.Tool{Name: "Echo", Description: "Echo.", RawSchema: obj, Handler: whoami},
		registry.Tool{Name: "Deploy", Description: "Deploy.", RawSchema: obj, Handler: whoami},
	))
	d, err := execute.New(nil)
	require.NoError(t, err)
	cache := &request.Cache{}
	policy := &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("h", "Defer(Deploy)")}}

	const n = 100
	var wg sync.WaitGroup
	got := make([][3]map[string]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := request.NewSession(request.Config{
				ID: fmt.Sprintf("session-%03d", i), Snapshot: reg.Snapshot(), Policy: policy,
				Provider: request.OpenAIChat, Model: "gpt-test", Dispatcher: d, Cache: cache,
			})
			if err != nil {
				errs[i] = err
				return
			}
			calls := []struct{ name, args, id string }{
				{"Echo", `{}`, fmt.Sprintf("call-%d-a", i)},
				// The first defer_execute of a deferred tool answers with its
				// schema; the second runs it.
				{registry.DeferExecuteName, `{"tool_name":"Deploy","params":{}}`, ""},
				{registry.DeferExecuteName, `{"tool_name":"Deploy","params":{}}`, fmt.Sprintf("call-%d-b", i)},
				{"Echo", `{}`, ""},
			}
			k := 0
			for j, c := range calls {
				res := s.Call(execute.WithCallID(context.Background(), c.id), c.name, json.RawMessage(c.args))
				if j == 1 {
					continue
				}
				if res.IsError {
					errs[i] = fmt.Errorf("call %d: %s", j, res.Text)
					return
				}
				var m map[string]string
				if err := json.Unmarshal([]byte(res.Text), &m); err != nil {
					errs[i] = err
					return
				}
				got[i][k] = m
				k++
			}
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		sid := fmt.Sprintf("session-%03d", i)
		assert.Equal(t, map[string]string{"session": sid, "name": "Echo", "via": "", "id": fmt.Sprintf("call-%d-a", i)}, got[i][0])
		assert.Equal(t, map[string]string{"session": sid, "name": "Deploy", "via": registry.DeferExecuteName, "id": fmt.Sprintf("call-%d-b", i)}, got[i][1])
		assert.Equal(t, map[string]string{"session": sid, "name": "Echo", "via": "", "id": ""}, got[i][2])
	}
}

// TestCallFromContextOutsideHandler: a plain context carries no call.
func TestCallFromContextOutsideHandler(t *testing.T) {
	_, ok := execute.CallFromContext(context.Background())
	assert.False(t, ok)
	_, ok = execute.CallFromContext(execute.WithCallID(context.Background(), "x"))
	assert.False(t, ok, "a call ID alone is not a call")
}

// ExampleCallFromContext: a handler learns its session and call from its
// context, so one registry serves every session.
func ExampleCallFromContext() {
	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{
		Name: "Whoami", Description: "Say who calls.", RawSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (registry.Result, error) {
			c, _ := execute.CallFromContext(ctx)
			return registry.Result{Text: fmt.Sprintf("session %s, tool %s, call %s", c.Session, c.Name, c.ID)}, nil
		},
	})
	d, _ := execute.New(nil)
	s, err := request.NewSession(request.Config{ID: "alice", Snapshot: reg.Snapshot(), Provider: request.OpenAIChat, Model: "gpt-test", Dispatcher: d})
	if err != nil {
		fmt.Println(err)
		return
	}
	res := s.Call(execute.WithCallID(context.Background(), "toolu_01"), "Whoami", json.RawMessage(`{}`))
	fmt.Println(res.Text)
	// Output:
	// session alice, tool Whoami, call toolu_01
}

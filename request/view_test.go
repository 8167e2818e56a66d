package request

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// Tests of issue 34: one tool view per session.

// TestViewSyncSearchRace: Sync runs while tool_search, Call and
// BuildRequest read the session. What a search reads of the removed names
// is a copy, never a slice a later Sync rewrites in place (run with -race).
func TestViewSyncSearchRace(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, nil)
	listDir := mcpTool("list_dir", "List the entries of a directory.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	stat := mcpTool("stat", "Show a file's size and modification time.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	var snaps []*registry.Snapshot
	for _, tools := range [][]registry.Tool{{listDir}, {stat}, {}, {listDir, stat}} {
		require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, tools))
		snaps = append(snaps, reg.Snapshot())
	}
	var wg sync.WaitGroup
	wg.Add(2)
	done := make(chan struct{})
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			_, err := f.s.Sync(context.Background(), snaps[i%len(snaps)])
			assert.NoError(t, err)
		}
	}()
	go func() {
		defer wg.Done()
		defer close(done)
		for range 100 {
			f.search(t, `{"tool_names":["mcp__files__stat","mcp__files__list_dir"]}`)
			f.search(t, `{"queries":["file size"]}`)
			f.exec(t, "mcp__files__stat", `{"path":"/"}`)
		}
	}()
	wg.Wait()
}

// TestAnswerCallID: Session.Answer gives the handler, as Session.Call
// with execute.WithCallID does, the ID of the call it answers.
func TestAnswerCallID(t *testing.T) {
	reg := registry.New(nil)
	var seen []string
	var mu sync.Mutex
	require.NoError(t, reg.Register(registry.Tool{
		Name: "Echo", Description: "Echo the text.", RawSchema: json.RawMessage(echoSchema),
		Handler: func(ctx context.Context, _ json.RawMessage) (registry.Result, error) {
			c, ok := execute.CallFromContext(ctx)
			mu.Lock()
			defer mu.Unlock()
			if ok {
				seen = append(seen, c.ID)
			}
			return registry.Result{Text: "ok"}, nil
		},
	}))
	d, err := execute.New(nil)
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), Anthropic, nil, nil)
	cfg.Dispatcher = d
	s, err := NewSession(cfg)
	require.NoError(t, err)
	m := s.Answer(context.Background(), ToolCall{ID: "toolu_42", Name: "Echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	require.False(t, m.IsError, m.Text)
	assert.Equal(t, "toolu_42", m.CallID)
	assert.Equal(t, []string{"toolu_42"}, seen, "the handler sees the call's ID")
}

// TestDenyToolSearchLoadsNothing: with Deny(tool_search) the model cannot
// load a schema, and calling a deferred tool by its index name does not
// load it either (the answer would carry its schema): nothing runs, on
// later calls too.
func TestDenyToolSearchLoadsNothing(t *testing.T) {
	reg := liveRegistry(t)
	var ran []string
	d, err := execute.New(&execute.Options{
		Permissions: []execute.Permission{{Action: execute.Deny, Pattern: registry.ToolSearchName}},
		OnEvent: func(ev execute.Event) {
			if ev.Kind == "completed" {
				ran = append(ran, ev.Tool)
			}
		},
	})
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.Dispatcher = d
	s, err := NewSession(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	r := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["mcp__files__stat"]}`))
	require.True(t, r.IsError)
	require.Contains(t, r.Text, "Permission denied")
	for _, name := range []string{"mcp__files__stat", "stat"} {
		for range 2 {
			r = s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+name+`","params":{"path":"/"}}`))
			assert.True(t, r.IsError, r.Text)
			assert.Contains(t, r.Text, "Permission denied")
			assert.NotContains(t, r.Text, `"properties"`, "no schema in the answer")
		}
	}
	assert.Empty(t, s.LoadedNames())
	assert.Empty(t, ran)
}

type ctxKey struct{}

// ctxObserver records the value under ctxKey in the context of each
// event.
type ctxObserver struct {
	mu   sync.Mutex
	seen map[string]any
}

func (o *ctxObserver) Begin(ctx context.Context, _ execute.Dispatch) context.Context { return ctx }
func (o *ctxObserver) End(context.Context, registry.Result)                          {}
func (o *ctxObserver) Event(ctx context.Context, ev execute.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen[string(ev.Kind)] = ctx.Value(ctxKey{})
}

// TestSyncCallerContext: the "tool_changed" report of a Sync runs under
// the caller's context, so an observer's span nests under the caller's.
func TestSyncCallerContext(t *testing.T) {
	reg := liveRegistry(t)
	obs := &ctxObserver{seen: map[string]any{}}
	d, err := execute.New(&execute.Options{Observer: obs})
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.Dispatcher = d
	s, err := NewSession(cfg)
	require.NoError(t, err)
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
		mcpTool("list_dir", "List the entries of a directory, changed.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		mcpTool("stat", "Show a file's size and modification time.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}))
	ctx := context.WithValue(context.Background(), ctxKey{}, "span-42")
	_, err = s.Sync(ctx, reg.Snapshot())
	require.NoError(t, err)
	require.Len(t, s.PendingChanges(), 1)
	assert.Equal(t, "span-42", obs.seen["tool_changed"])
}

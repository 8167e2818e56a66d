package request

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			_, err := f.s.Sync(snaps[i%len(snaps)])
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

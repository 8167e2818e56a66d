package request

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// eventLog records a dispatcher's events.
type eventLog struct {
	mu     sync.Mutex
	events []execute.Event
}

func (l *eventLog) observer() execute.Observer {
	return execute.OnEvent(func(ev execute.Event) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.events = append(l.events, ev)
	})
}

func (l *eventLog) kinds(k execute.EventKind) []execute.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []execute.Event
	for _, ev := range l.events {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// TestPreloadAnswersToSearchRules (issue 42): a preload loads schemas as
// tool_search does, so it answers to the same guards. With
// Deny(tool_search) a user message naming a deferred tool attaches no
// schema, loads nothing, and the tool's next defer_execute is refused as
// a load would be — as without Preload. A before-call hook on tool_search
// that blocks stops a preload too. Without a rule against it, a preload
// raises the "searched" event a search does, marked as a preload, with the
// names it loaded.
func TestPreloadAnswersToSearchRules(t *testing.T) {
	const ask = "Use mcp__vault__read_secret to read prod/db."
	const callArgs = `{"tool_name":"mcp__vault__read_secret","params":{"vault_path_qx":"prod/db"}}`
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			deny := &execute.Options{Permissions: execute.MustPermissions("Deny(tool_search)")}
			s := preloadVault(t, p, deny, deferral.View{}, true)
			body, err := s.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
			require.NoError(t, err)
			tail := string(body[len(s.Prefix()):])
			assert.NotContains(t, tail, "preloaded_tools", "Deny(tool_search) stops a preload")
			assert.NotContains(t, tail, "vault_path_qx")
			assert.Empty(t, s.LoadedNames())
			r := s.Call(context.Background(), registry.DeferExecuteName, json.RawMessage(callArgs))
			assert.True(t, r.IsError, "the tool was never loaded: its call is refused as a load")
			assert.Contains(t, r.Text, "tool_search")

			blocked := &execute.Options{Hooks: []execute.Hook{{Name: "no-search", Pattern: registry.ToolSearchName,
				Before: func(context.Context, *execute.Call) execute.Verdict {
					return execute.Verdict{Block: true, Reason: "no searches"}
				}}}}
			s = preloadVault(t, p, blocked, deferral.View{}, true)
			body, err = s.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
			require.NoError(t, err)
			assert.NotContains(t, string(body[len(s.Prefix()):]), "preloaded_tools", "a hook that blocks tool_search stops a preload")
			assert.Empty(t, s.LoadedNames())

			log := &eventLog{}
			s = preloadVault(t, p, &execute.Options{Observer: log.observer()}, deferral.View{}, true)
			body, err = s.BuildRequest(Turn{Messages: []Message{userMsg(ask)}})
			require.NoError(t, err)
			assert.Contains(t, string(body), "preloaded_tools")
			evs := log.kinds(execute.EventSearched)
			require.Len(t, evs, 1, "a preload raises one searched event")
			assert.Equal(t, []string{"mcp__vault__read_secret"}, evs[0].Loaded)
			assert.Equal(t, "v", evs[0].Session)
			assert.True(t, strings.HasPrefix(evs[0].Detail, "preload"), "the event says a preload fired: %q", evs[0].Detail)

			// A turn the build refuses loads nothing and reports no load.
			log = &eventLog{}
			s = preloadVault(t, p, &execute.Options{Observer: log.observer()}, deferral.View{}, true)
			_, err = s.BuildRequest(Turn{Messages: []Message{userMsg(ask)}, Inject: []string{"  "}})
			require.Error(t, err)
			assert.Empty(t, log.kinds(execute.EventSearched), "no searched event for a turn that was not sent")
			assert.Empty(t, s.LoadedNames())
		})
	}
}

// ctxRanker is a ranker that, like a harness's HTTP embedder, blocks on
// its search until the context it is given ends, and records the value
// the caller put in it.
type ctxRanker struct {
	mu   sync.Mutex
	seen []any
}

type callerKey struct{}

func (r *ctxRanker) Index(context.Context, []*registry.Tool) (search.Index, error) { return r, nil }

func (r *ctxRanker) Search(ctx context.Context, _ []string, _ int) ([]search.Hit, error) {
	r.mu.Lock()
	r.seen = append(r.seen, ctx.Value(callerKey{}))
	r.mu.Unlock()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(10 * time.Second):
		return nil, errors.New("the ranker was never cancelled")
	}
}

// TestPreloadRankerGetsCallerContext (issue 42): a preload's search runs
// under the context the harness builds with (AppendRequestContext): a
// ranker that blocks receives the caller's context, returns when the
// caller cancels it, and the build goes on without a preload.
func TestPreloadRankerGetsCallerContext(t *testing.T) {
	r := &ctxRanker{}
	var ran atomic.Int32
	s, err := NewSession(Config{ID: "v", Snapshot: vaultRegistry(t, &ran).Snapshot(), Provider: Anthropic, Model: testModel(Anthropic),
		Extra: tokenExtra(Anthropic, "256"), Preload: true, Search: &search.Options{Ranker: r}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), callerKey{}, "caller"))
	time.AfterFunc(50*time.Millisecond, cancel)
	body, err := s.AppendRequestContext(ctx, nil, Turn{Messages: []Message{userMsg("Please list what the vault keeps for the team.")}})
	require.NoError(t, err, "a preload that could not finish does not fail the build")
	assert.NotContains(t, string(body), "preloaded_tools")
	assert.Empty(t, s.LoadedNames())
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.seen, "the preload searched")
	for _, v := range r.seen {
		assert.Equal(t, "caller", v, "the ranker received the caller's context")
	}
}

// TestRestoreLoadedAnswersToSearchRules (issue 42): a restored loaded set
// is a load like a search's: restored under Deny(tool_search) it loads
// nothing, and the tool's next call is refused as a load would be; under
// the same rules it was saved with, it is kept and a "searched" event
// says "restore".
func TestRestoreLoadedAnswersToSearchRules(t *testing.T) {
	const callArgs = `{"tool_name":"mcp__vault__read_secret","params":{"vault_path_qx":"prod/db"}}`
	s := preloadVault(t, Anthropic, nil, deferral.View{}, false)
	r := s.Call(context.Background(), registry.ToolSearchName, json.RawMessage(`{"tool_names":["mcp__vault__read_secret"]}`))
	require.False(t, r.IsError, r.Text)
	require.Equal(t, []string{"mcp__vault__read_secret"}, s.LoadedNames())
	saved, err := s.MarshalState()
	require.NoError(t, err)

	log := &eventLog{}
	d, err := execute.New(&execute.Options{Observer: log.observer()})
	require.NoError(t, err)
	cfg := s.cfg
	cfg.Dispatcher = d
	kept, err := RestoreSession(cfg, saved, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp__vault__read_secret"}, kept.LoadedNames())
	evs := log.kinds(execute.EventSearched)
	require.Len(t, evs, 1)
	assert.True(t, strings.HasPrefix(evs[0].Detail, "restore"), evs[0].Detail)
	assert.Equal(t, []string{"mcp__vault__read_secret"}, evs[0].Loaded)

	deny, err := execute.New(&execute.Options{Permissions: execute.MustPermissions("Deny(tool_search)")})
	require.NoError(t, err)
	cfg.Dispatcher = deny
	denied, err := RestoreSession(cfg, saved, nil)
	require.NoError(t, err)
	assert.Empty(t, denied.LoadedNames(), "Deny(tool_search) restores nothing loaded")
	r = denied.Call(context.Background(), registry.DeferExecuteName, json.RawMessage(callArgs))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Text, "tool_search")
}

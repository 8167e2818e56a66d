package request_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/internal/testkit/fleet"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/storetest"
)

var storeProviders = []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini}

// fleetOptions are the github server (deferred but for its get_* readers)
// and the harness's built-in tools, as the request package's own tests use.
func fleetOptions(t testing.TB, p request.Provider) fleet.Options {
	t.Helper()
	var cats []*registry.Catalog
	for _, f := range []string{"catalogs/github.tools.json", "fixtures/harness-catalog.json"} {
		c, err := registry.LoadCatalog(filepath.Join("..", "testdata", f))
		require.NoError(t, err)
		var keep []registry.Tool
		for _, tl := range c.Tools {
			if c.Server != "" || !strings.HasPrefix(tl.Name, toolname.MCPPrefix) {
				keep = append(keep, tl)
			}
		}
		c.Tools = keep
		cats = append(cats, c)
	}
	return fleet.Options{
		Catalogs: cats,
		Policy: &deferral.Policy{Layers: []deferral.Layer{
			deferral.MustLayer("project", "Defer(mcp__github__*)", "NoDefer(mcp__github__get_*)"),
		}},
		Provider: p,
	}
}

// countingStore counts what is written to a store.
type countingStore struct {
	request.Store
	mu                 sync.Mutex
	appends, snapshots int
	bytes              []int // per append
}

func (c *countingStore) Append(ctx context.Context, id string, version int64, rec request.Record) error {
	err := c.Store.Append(ctx, id, version, rec)
	if err == nil {
		c.mu.Lock()
		c.appends++
		c.bytes = append(c.bytes, len(rec.Data))
		if rec.Snapshot {
			c.snapshots++
		}
		c.mu.Unlock()
	}
	return err
}

func TestMemoryStore(t *testing.T) {
	storetest.TestStore(t, func(*testing.T) request.Store { return &request.MemoryStore{} })
}

// Three replicas, each with its own registry and cache, serve one
// conversation round-robin from one store: every body is the body the
// same conversation gets from one in-process session. A small
// CompactBytes makes the log go through several snapshots.
func TestConversationAcrossReplicas(t *testing.T) {
	for _, p := range storeProviders {
		t.Run(string(p), func(t *testing.T) {
			store := &countingStore{Store: &request.MemoryStore{}}
			opts := fleetOptions(t, p)
			opts.CompactBytes = 4 << 10
			f, err := fleet.New(store, "conv", opts)
			require.NoError(t, err)
			const turns = 60
			for k := range turns {
				got, err := f.Replica(k%3).Serve(t.Context(), k)
				require.NoError(t, err, "turn %d", k)
				want, err := f.Want(t.Context(), k)
				require.NoError(t, err)
				require.Nil(t, wire.Diff(want, got), "turn %d", k)
			}
			assert.Equal(t, turns, store.appends)
			assert.Greater(t, store.snapshots, 1, "the log was compacted")
			last, err := f.Want(t.Context(), turns-1)
			require.NoError(t, err)
			for _, s := range []string{"tool_search", "defer_execute", "<new_deferred_tool>", "<tools_changed", "3 lines"} {
				assert.Contains(t, string(last), s, "the script exercised %s", s)
			}

			// The stored state restores the reference's messages, loaded
			// set and view.
			c, err := request.OpenConversation(t.Context(), store, "conv", f.Replica(0).Config(), nil)
			require.NoError(t, err)
			ref := f.Reference()
			assert.Equal(t, ref.Messages(), c.Session().Messages())
			assert.Equal(t, ref.LoadedSet().Names(), c.Session().LoadedSet().Names())
			assert.Equal(t, ref.View(), c.Session().View())
			assert.True(t, c.Session().View().Elevated)
		})
	}
}

// A commit built on a version another replica moved past fails with a
// typed conflict and changes nothing; the conversation reopened holds the
// winner's turn.
func TestConversationConflict(t *testing.T) {
	ctx := t.Context()
	store := &request.MemoryStore{}
	f, err := fleet.New(store, "c", fleetOptions(t, request.Anthropic))
	require.NoError(t, err)
	for k := range 3 {
		_, err := f.Replica(0).Serve(ctx, k)
		require.NoError(t, err)
	}
	a, err := f.Replica(1).Build(ctx, 3)
	require.NoError(t, err)
	b, err := f.Replica(2).Build(ctx, 3)
	require.NoError(t, err)
	require.Equal(t, string(a.Body), string(b.Body))
	require.NoError(t, a.Commit(ctx))

	err = b.Commit(ctx)
	require.ErrorIs(t, err, request.ErrConflict)
	var ce *request.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, request.ConflictError{ID: "c", Version: 3, Stored: 4}, *ce)
	assert.ErrorIs(t, b.Commit(ctx), request.ErrConflict, "a conversation that lost stays spent")

	got, err := store.Load(ctx, "c")
	require.NoError(t, err)
	assert.EqualValues(t, 4, got.Version)

	retry, err := f.Replica(2).Build(ctx, 3)
	require.NoError(t, err)
	assert.True(t, retry.Done, "the reopened conversation holds the turn")
	assert.Equal(t, string(a.Body), string(retry.Body))
	want, err := f.Want(ctx, 3)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(retry.Body))
}

// A turn's delta holds the turn's bytes, not the history's: the record
// written at turn 200 is the size of the one at turn 10 for the same kind
// of turn.
func TestConversationDeltaIsTheTurn(t *testing.T) {
	ctx := t.Context()
	store := &countingStore{Store: &request.MemoryStore{}}
	opts := fleetOptions(t, request.OpenAIChat)
	f, err := fleet.New(store, "c", opts)
	require.NoError(t, err)
	c, err := request.OpenConversation(ctx, store, "c", f.Replica(0).Config(), &request.ConversationOptions{CompactBytes: 1 << 30})
	require.NoError(t, err)
	for k := range 205 {
		turn, err := fleet.Step(ctx, c.Session(), k)
		require.NoError(t, err)
		_, err = c.Session().BuildRequest(turn)
		require.NoError(t, err)
		require.NoError(t, c.Commit(ctx, fleet.TurnKey(k)))
	}
	// The script's Sync (a tool leaves its server at turn 33) changes the
	// session's live set, which a conversation stores whole, once; every
	// other turn is a delta.
	require.Equal(t, 1, store.snapshots)
	// Turns 11, 101 and 203 are plain text turns (k%6 == 5).
	for _, k := range []int{101, 203} {
		assert.InDelta(t, store.bytes[11], store.bytes[k], 8, "turn %d wrote %d bytes, turn 11 wrote %d", k, store.bytes[k], store.bytes[11])
	}
}

// A store that fails to load fails the open, wrapped.
func TestConversationStoreFailure(t *testing.T) {
	boom := errors.New("connection refused")
	f, err := fleet.New(&request.MemoryStore{}, "c", fleetOptions(t, request.OpenAIChat))
	require.NoError(t, err)
	_, err = request.OpenConversation(t.Context(), failing{boom}, "c", f.Replica(0).Config(), nil)
	require.ErrorIs(t, err, boom)
}

type failing struct{ err error }

func (f failing) Load(context.Context, string) (request.Stored, error) {
	return request.Stored{}, f.err
}
func (f failing) Append(context.Context, string, int64, request.Record) error {
	return f.err
}

// A store failure on Commit leaves the outcome unknown: the error says to
// reopen, and the conversation is spent.
func TestConversationCommitFailure(t *testing.T) {
	ctx := t.Context()
	boom := errors.New("connection reset")
	store := appendFails{&request.MemoryStore{}, boom}
	f, err := fleet.New(store, "c", fleetOptions(t, request.OpenAIChat))
	require.NoError(t, err)
	p, err := f.Replica(0).Build(ctx, 0)
	require.NoError(t, err)
	err = p.Commit(ctx)
	require.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, request.ErrConflict)
	assert.Contains(t, err.Error(), "open it again")
	assert.ErrorIs(t, p.Commit(ctx), request.ErrConflict, "a conversation whose commit failed is spent")
}

type appendFails struct {
	request.Store
	err error
}

func (a appendFails) Append(context.Context, string, int64, request.Record) error { return a.err }

// Records encoded for one provider are read by a replica of another (a
// harness that switched models): the messages are encoded again, and the
// next commit writes a snapshot in the new encoding.
func TestConversationOtherProvider(t *testing.T) {
	ctx := t.Context()
	store := &countingStore{Store: &request.MemoryStore{}}
	f, err := fleet.New(store, "c", fleetOptions(t, request.Anthropic))
	require.NoError(t, err)
	for k := range 6 {
		_, err := f.Replica(k%3).Serve(ctx, k)
		require.NoError(t, err)
	}
	chat := fleetOptions(t, request.OpenAIChat)
	g, err := fleet.New(store, "c", chat)
	require.NoError(t, err)
	c, err := request.OpenConversation(ctx, store, "c", g.Replica(0).Config(), &request.ConversationOptions{Handlers: fleet.Handlers()})
	require.NoError(t, err)
	// The same messages, restored the plain way, give the same body.
	st, err := c.Session().MarshalState()
	require.NoError(t, err)
	plain, err := request.RestoreSession(g.Replica(1).Config(), st, fleet.Handlers())
	require.NoError(t, err)
	turn := request.Turn{Messages: []request.Message{{Role: request.RoleAssistant, Text: "ok"}, {Role: request.RoleUser, Text: "next"}}}
	want, err := plain.BuildRequest(turn)
	require.NoError(t, err)
	got, err := c.Session().BuildRequest(turn)
	require.NoError(t, err)
	require.Nil(t, wire.Diff(want, got))
	assert.True(t, json.Valid(got))
	require.NoError(t, c.Commit(ctx, "switch"))
	assert.Equal(t, 1, store.snapshots, "the first commit in the new encoding is a snapshot")

	again, err := request.OpenConversation(ctx, store, "c", g.Replica(2).Config(), &request.ConversationOptions{Handlers: fleet.Handlers()})
	require.NoError(t, err)
	assert.Equal(t, "switch", again.LastTurn())
	body, err := again.Session().BuildRequest(request.Turn{})
	require.NoError(t, err)
	require.Nil(t, wire.Diff(got, body))
}

// Records are deterministic: the same conversation committed by replicas
// whose registries were imported in different orders is stored byte for
// byte the same.
func TestConversationRecordsAreDeterministic(t *testing.T) {
	ctx := t.Context()
	for _, p := range []request.Provider{request.Anthropic} { // the one whose deltas rewrite bytes
		t.Run(string(p), func(t *testing.T) {
			a, b := &request.MemoryStore{}, &request.MemoryStore{}
			opts := fleetOptions(t, p)
			opts.CompactBytes = 8 << 10
			fa, err := fleet.New(a, "c", opts)
			require.NoError(t, err)
			fb, err := fleet.New(b, "c", opts)
			require.NoError(t, err)
			for k := range 35 { // past the self-built tool and the tools-changed announcement
				_, err := fa.Replica(0).Serve(ctx, k)
				require.NoError(t, err)
				_, err = fb.Replica(1+k%2).Serve(ctx, k)
				require.NoError(t, err)
			}
			ga, err := a.Load(ctx, "c")
			require.NoError(t, err)
			gb, err := b.Load(ctx, "c")
			require.NoError(t, err)
			require.NotNil(t, ga.Snapshot)
			assert.Equal(t, ga, gb)
		})
	}
}

package redisstore_test

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/integration/redisstore"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/internal/testkit/fleet"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/storetest"
)

// root is the core module's directory, which holds testdata/.
const root = "../.."

var providers = []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic}

// fleet is the github server (deferred but for its get_* readers) and the
// harness's built-in tools, served by replicas replicas from store.
func newFleet(t testing.TB, store request.Store, p request.Provider, replicas int) *fleet.Fleet {
	t.Helper()
	var cats []*registry.Catalog
	for _, f := range []string{"catalogs/github.tools.json", "fixtures/harness-catalog.json"} {
		c, err := registry.LoadCatalog(filepath.Join(root, "testdata", f))
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
	f, err := fleet.New(store, "conv-1", fleet.Options{
		Catalogs: cats,
		Policy: &deferral.Policy{Layers: []deferral.Layer{
			deferral.MustLayer("project", "Defer(mcp__github__*)", "NoDefer(mcp__github__get_*)"),
		}},
		Provider: p,
		Replicas: replicas,
	})
	require.NoError(t, err)
	return f
}

func newStore(t testing.TB) *redisstore.Store {
	return redisstore.New(client(t), &redisstore.Options{Prefix: prefix(t)})
}

func TestStoreContract(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) request.Store { return newStore(t) })
}

// Three replicas — separate registries imported in different orders,
// separate caches — serve 60 turns of one conversation round-robin from
// a real redis-server: every body is byte-identical to the body one
// in-process session builds for the same conversation.
func TestReplicasServeOneConversation(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			ctx := t.Context()
			f := newFleet(t, newStore(t), p, 3)
			const turns = 60
			for k := range turns {
				got, err := f.Replica(k%3).Serve(ctx, k)
				require.NoError(t, err, "turn %d", k)
				want, err := f.Want(ctx, k)
				require.NoError(t, err)
				require.Nil(t, wire.Diff(want, got), "turn %d", k)
			}
			last, err := f.Want(ctx, turns-1)
			require.NoError(t, err)
			for _, s := range []string{`"tool_search"`, `"defer_execute"`, "<new_deferred_tool>", "<tools_changed", "3 lines"} {
				assert.Contains(t, string(last), s, "the script exercised %s", s)
			}
		})
	}
}

// Two replicas race on the same turn 200 times: both build on the same
// version, both commit at once. Every race ends with exactly one append;
// the loser's retry finds the turn stored and answers with the same body
// as the reference.
func TestRaceOnOneTurn(t *testing.T) {
	ctx := t.Context()
	store := newStore(t)
	f := newFleet(t, store, request.Anthropic, 2)
	const races = 200
	for k := range races {
		built := make([]*fleet.Pending, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				built[i], errs[i] = f.Replica(i).Build(ctx, k)
			}()
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "race %d", k)
		require.False(t, built[0].Done || built[1].Done)
		require.Equal(t, string(built[0].Body), string(built[1].Body))

		start := make(chan struct{})
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = built[i].Commit(ctx)
			}()
		}
		close(start)
		wg.Wait()
		loser := -1
		for i, err := range errs {
			if err != nil {
				require.ErrorIs(t, err, request.ErrConflict, "race %d", k)
				require.Equal(t, -1, loser, "race %d: both commits failed", k)
				loser = i
			}
		}
		require.NotEqual(t, -1, loser, "race %d: both commits succeeded", k)

		got, err := store.Load(ctx, "conv-1")
		require.NoError(t, err)
		require.EqualValues(t, k+1, got.Version, "race %d: exactly one append", k)
		retry, err := f.Replica(loser).Build(ctx, k)
		require.NoError(t, err)
		require.True(t, retry.Done, "race %d: the retry finds the turn stored", k)
		want, err := f.Want(ctx, k)
		require.NoError(t, err)
		require.Nil(t, wire.Diff(want, retry.Body), "race %d", k)
	}
	c, err := request.OpenConversation(ctx, store, "conv-1", f.Replica(0).Config(), &request.ConversationOptions{Handlers: fleet.Handlers()})
	require.NoError(t, err)
	assert.Equal(t, f.Reference().Messages(), c.Session().Messages(), "no turn lost or applied twice")
}

// A replica process is killed (SIGKILL) after building a turn and before
// committing it: the store still holds the turn before, and another
// replica serves the turn and the rest of the conversation with every
// body as the reference's, no turn lost or duplicated.
func TestCrashBetweenBuildAndCommit(t *testing.T) {
	ctx := t.Context()
	rdb := client(t)
	pre := prefix(t)
	store := redisstore.New(rdb, &redisstore.Options{Prefix: pre})
	f := newFleet(t, store, request.Anthropic, 3)
	const crashAt, turns = 21, 30 // turn 21 carries the self-built tool's announcement
	for k := range crashAt {
		_, err := f.Replica(k%3).Serve(ctx, k)
		require.NoError(t, err)
	}

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%d", crashEnv, serverAddr, pre, crashAt))
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	var built string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if b, ok := strings.CutPrefix(sc.Text(), "built "); ok {
			built = b
			break
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	ws, ok := exit.Sys().(syscall.WaitStatus)
	require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL, "the helper was killed: %v", err)
	want, err := f.Want(ctx, crashAt)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("%x", sha256.Sum256(want)), built, "the killed replica had built the turn")

	got, err := store.Load(ctx, "conv-1")
	require.NoError(t, err)
	require.EqualValues(t, crashAt, got.Version, "nothing of the killed replica's turn was stored")
	for k := crashAt; k < turns; k++ {
		body, err := f.Replica(k%3).Serve(ctx, k)
		require.NoError(t, err)
		want, err := f.Want(ctx, k)
		require.NoError(t, err)
		require.Nil(t, wire.Diff(want, body), "turn %d", k)
	}
	c, err := request.OpenConversation(ctx, store, "conv-1", f.Replica(0).Config(), &request.ConversationOptions{Handlers: fleet.Handlers()})
	require.NoError(t, err)
	assert.EqualValues(t, turns, c.Version())
	assert.Equal(t, f.Reference().Messages(), c.Session().Messages(), "no turn lost or applied twice")
}

// TestCrashHelper is the replica TestCrashBetweenBuildAndCommit kills: it
// builds one turn, prints its hash and waits.
func TestCrashHelper(t *testing.T) {
	env := os.Getenv(crashEnv)
	if env == "" {
		t.Skip("the replica process of TestCrashBetweenBuildAndCommit")
	}
	parts := strings.Split(env, "|")
	require.Len(t, parts, 3)
	k, err := strconv.Atoi(parts[2])
	require.NoError(t, err)
	rdb := redis.NewClient(&redis.Options{Addr: parts[0]})
	f := newFleet(t, redisstore.New(rdb, &redisstore.Options{Prefix: parts[1]}), request.Anthropic, 3)
	p, err := f.Replica(1).Build(t.Context(), k)
	require.NoError(t, err)
	require.False(t, p.Done)
	fmt.Printf("built %x\n", sha256.Sum256(p.Body))
	time.Sleep(time.Minute) // killed here, before Commit
	t.Fatal("the replica was not killed")
}

// With a TTL every append renews the expiry of the conversation's keys;
// without one they do not expire.
func TestTTL(t *testing.T) {
	ctx := t.Context()
	rdb := client(t)
	for _, ttl := range []time.Duration{0, time.Hour} {
		pre := prefix(t)
		s := redisstore.New(rdb, &redisstore.Options{Prefix: pre, TTL: ttl})
		require.NoError(t, s.Append(ctx, "c", 0, request.Record{Data: []byte("d1")}))
		require.NoError(t, s.Append(ctx, "c", 1, request.Record{Data: []byte("s2"), Snapshot: true}))
		require.NoError(t, s.Append(ctx, "c", 2, request.Record{Data: []byte("d3")}))
		for _, suffix := range []string{":v", ":snap", ":log"} {
			got, err := rdb.PTTL(ctx, pre+"{c}"+suffix).Result()
			require.NoError(t, err)
			if ttl == 0 {
				assert.Equal(t, time.Duration(-1), got, "%s has no expiry", suffix)
			} else {
				assert.InDelta(t, float64(ttl), float64(got), float64(time.Minute), "%s expires with the TTL", suffix)
			}
		}
	}
}

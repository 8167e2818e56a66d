package main

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/integration/redisstore"
)

// startRedis starts a redis-server on a free loopback port for the test
// (as integration/redisstore's tests do), or skips without one.
func startRedis(t *testing.T) *redis.Client {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed (apt-get install -y redis-server)")
		}
		t.Skip("redis-server is not installed (apt-get install -y redis-server)")
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		for sc := bufio.NewScanner(out); sc.Scan(); {
		}
	}()
	rdb := redis.NewClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))})
	t.Cleanup(func() { _ = rdb.Close() })
	eventually(t, "redis-server to answer", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return rdb.Ping(ctx).Err() == nil
	})
	return rdb
}

// roundRobin sends each request to the next replica in turn, as a load
// balancer without sticky sessions does, and counts what each served.
type roundRobin struct {
	replicas []*url.URL
	n        atomic.Int64
	served   []atomic.Int64
}

func (rr *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	i := int(rr.n.Add(1)) % len(rr.replicas)
	rr.served[i].Add(1)
	r := req.Clone(req.Context())
	r.URL.Host = rr.replicas[i].Host
	r.Host = rr.replicas[i].Host
	return http.DefaultTransport.RoundTrip(r)
}

// TestReplicasShareSession: two gateway replicas with the session state in
// one real redis-server, behind a round-robin balancer, serve one client
// session: a tool loaded through one replica is called through the other,
// an Ask asked by one is answered on the other, and the list is the same
// from both.
func TestReplicasShareSession(t *testing.T) {
	rdb := startRedis(t)
	store := redisstore.New(rdb, nil)
	secret := []byte("0123456789abcdef0123456789abcdef") // the same on every replica
	alpha, beta := twoServers()
	rr := &roundRobin{served: make([]atomic.Int64, 2)}
	for range 2 {
		g := testGatewayWith(t, baseRules, gatewayOptions{store: store, secret: secret}, alpha.server("alpha"), beta.server("beta"))
		hs := httptest.NewServer(g.httpHandler())
		t.Cleanup(hs.Close)
		u, err := url.Parse(hs.URL)
		require.NoError(t, err)
		rr.replicas = append(rr.replicas, u)
	}
	var asked atomic.Int64
	c := sdk.NewClient(&sdk.Implementation{Name: "balanced", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{askID: true}}, nil
		},
	})
	connect := func() *sdk.ClientSession {
		cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{
			Endpoint: rr.replicas[0].String() + "/mcp", HTTPClient: &http.Client{Transport: rr},
		}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	cs := connect()
	first, _ := listNames(t, cs)
	second, _ := listNames(t, cs)
	assert.Equal(t, []string{"defer_execute", "mcp__beta__status", "tool_search"}, first)
	assert.Equal(t, first, second)

	before := [2]int64{rr.served[0].Load(), rr.served[1].Load()}
	text, isErr := call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__beta__weather"}})
	require.False(t, isErr, text)
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__beta__weather", "params": map[string]any{"city": "Oslo"}})
	require.False(t, isErr, text)
	assert.Equal(t, `weather: {"city":"Oslo"}`, text, "loaded through one replica, called through the other")
	assert.Equal(t, before[0]+1, rr.served[0].Load(), "each replica served one of the two calls")
	assert.Equal(t, before[1]+1, rr.served[1].Load())

	call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__alpha__transfer"}})
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__alpha__transfer", "params": map[string]any{"amount": 7}})
	require.False(t, isErr, text)
	assert.Equal(t, `transfer: {"amount":7}`, text)
	assert.Equal(t, int64(1), asked.Load())

	// Another client session shares nothing with the first.
	other := connect()
	text, isErr = call(t, other, "defer_execute", map[string]any{"tool_name": "mcp__beta__weather", "params": map[string]any{"city": "Oslo"}})
	assert.True(t, isErr)
	assert.Contains(t, text, "had not been loaded")
	assert.Equal(t, []string{"weather"}, beta.called())
}

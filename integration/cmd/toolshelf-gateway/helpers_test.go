package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/integration/mcp"
)

// upstream is a real go-sdk MCP server reached over in-memory transports,
// standing for one server of the host's mcpServers file.
type upstream struct {
	srv   *sdk.Server
	mu    sync.Mutex
	calls []string
}

func newUpstream(tools ...*sdk.Tool) *upstream {
	u := &upstream{srv: sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, nil)}
	for _, t := range tools {
		u.add(t)
	}
	return u
}

// add adds (or replaces) a tool answering "<name>: <arguments>"; the
// server tells its clients tools/list_changed.
func (u *upstream) add(t *sdk.Tool) {
	name := t.Name
	u.srv.AddTool(t, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		u.mu.Lock()
		u.calls = append(u.calls, name)
		u.mu.Unlock()
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + ": " + string(req.Params.Arguments)}}}, nil
	})
}

func (u *upstream) called() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.calls)
}

func (u *upstream) server(name string) mcp.Server {
	return mcp.Server{Name: name, Transport: func() sdk.Transport {
		ct, st := sdk.NewInMemoryTransports()
		if _, err := u.srv.Connect(context.Background(), st, nil); err != nil {
			panic(err)
		}
		return ct
	}}
}

func tool(name, desc, schema string) *sdk.Tool {
	return &sdk.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}
}

const msgSchema = `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`

// testGateway starts a gateway over servers with the rules text and a pins
// file in a temp dir, waits for the servers, and closes it at the end.
func testGateway(t testing.TB, rules string, servers ...mcp.Server) *gateway {
	return testGatewayWith(t, rules, gatewayOptions{}, servers...)
}

// testGatewayWith is testGateway with options (a store, a secret).
func testGatewayWith(t testing.TB, rules string, o gatewayOptions, servers ...mcp.Server) *gateway {
	t.Helper()
	dir := t.TempDir()
	rf := &rulesFile{path: filepath.Join(dir, "rules"), profiles: map[string]*profile{}}
	require.NoError(t, rf.parse(rules))
	pins, err := newPinStore(filepath.Join(dir, "pins.json"))
	require.NoError(t, err)
	o.rules, o.pins, o.log, o.connectTimeout = rf, pins, testLog{t}, 10*time.Second
	g, err := newGateway(servers, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.close() })
	g.waitReady(10 * time.Second)
	return g
}

// client connects a go-sdk client to a new downstream session of profile
// name; elicit, when set, answers Ask rules.
func client(t testing.TB, g *gateway, name string, elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)) *sdk.ClientSession {
	t.Helper()
	p, err := g.rules.profile(name)
	require.NoError(t, err)
	srv, err := g.server(p)
	require.NoError(t, err)
	ct, st := sdk.NewInMemoryTransports()
	_, err = srv.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: elicit})
	cs, err := c.Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// listNames returns the names tools/list gives, sorted.
func listNames(t testing.TB, cs *sdk.ClientSession) ([]string, *sdk.ListToolsResult) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names, res
}

// call calls a tool and returns its text and isError.
func call(t testing.TB, cs *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// searchDescription returns tool_search's description (its index).
func searchDescription(t *testing.T, cs *sdk.ClientSession) string {
	t.Helper()
	_, res := listNames(t, cs)
	for _, tl := range res.Tools {
		if tl.Name == "tool_search" {
			return tl.Description
		}
	}
	t.Fatal("no tool_search")
	return ""
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// testLog sends the gateway's log to t.Log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/integration/mcp"
)

// benchServers are captured tools/list results of real npm servers
// (testdata/wild, attribution there) that the benchmark serves from
// in-process go-sdk servers: the gateway in front of them.
var benchServers = []string{
	"modelcontextprotocol__server-everything", "modelcontextprotocol__server-filesystem",
	"modelcontextprotocol__server-memory", "modelcontextprotocol__server-github",
	"playwright__mcp", "notionhq__notion-mcp-server",
}

// wildUpstream serves the captured tools of one wild server; every call
// answers "ok".
func wildUpstream(tb testing.TB, file string) (*upstream, string) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "wild", file+".json"))
	require.NoError(tb, err)
	var c struct {
		Server string `json:"server"`
		Tools  []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	require.NoError(tb, json.Unmarshal(b, &c))
	u := newUpstream()
	for _, t := range c.Tools {
		u.add(&sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return u, c.Server
}

// direct connects a go-sdk client to u with no gateway between.
func direct(tb testing.TB, u *upstream) *sdk.ClientSession {
	ct, st := sdk.NewInMemoryTransports()
	_, err := u.srv.Connect(context.Background(), st, nil)
	require.NoError(tb, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = cs.Close() })
	return cs
}

func listBytes(tb testing.TB, cs *sdk.ClientSession) int {
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(tb, err)
	b, err := json.Marshal(res)
	require.NoError(tb, err)
	return len(b)
}

// BenchmarkGateway measures, in one run, what the gateway costs and saves
// against the same servers reached directly, all in process (in-memory
// MCP transports, so the figures are the gateway's own work, not a
// network's):
//
//   - gateway/direct: the time of one call of a deferred tool through the
//     gateway (defer_execute: validation, permission rules, hooks, the
//     upstream call) over the time of the same call made on the upstream
//     server directly, both timed in each iteration;
//   - resident/direct: the same for a tool the rules make resident (called
//     by its own name through the gateway);
//   - list-bytes-ratio: the bytes of the gateway's tools/list over the
//     bytes of the six upstream servers' tools/list results together (the
//     JSON the go-sdk client decodes, encoded again).
func BenchmarkGateway(b *testing.B) {
	f := newBenchFleet(b)
	github, gw, upstreamBytes, gatewayBytes, tools := f.github, f.gw, f.upstreamBytes, f.gatewayBytes, f.tools
	up := direct(b, github)
	args := map[string]any{"owner": "toolshelf", "repo": "toolshelf", "issue_number": 46}
	call(b, gw, "tool_search", map[string]any{"tool_names": []string{"mcp__github__list_commits"}})
	commits := map[string]any{"owner": "toolshelf", "repo": "toolshelf"}
	deferred := map[string]any{"tool_name": "mcp__github__list_commits", "params": commits}
	if text, isErr := call(b, gw, "defer_execute", deferred); isErr {
		b.Fatal(text)
	}
	b.ReportAllocs()
	var tDirect, tDeferred, tResident time.Duration
	for b.Loop() {
		t0 := time.Now()
		callOK(b, up, "list_commits", commits)
		t1 := time.Now()
		callOK(b, gw, "defer_execute", deferred)
		t2 := time.Now()
		callOK(b, up, "get_issue", args)
		t3 := time.Now()
		callOK(b, gw, "mcp__github__get_issue", args)
		t4 := time.Now()
		tDirect += t1.Sub(t0) + t3.Sub(t2)
		tDeferred += t2.Sub(t1)
		tResident += t4.Sub(t3)
	}
	b.ReportMetric(2*float64(tDeferred)/float64(tDirect), "gateway/direct")
	b.ReportMetric(2*float64(tResident)/float64(tDirect), "resident/direct")
	b.ReportMetric(float64(tDirect)/2/float64(b.N), "direct-ns/call")
	b.ReportMetric(float64(gatewayBytes)/float64(upstreamBytes), "list-bytes-ratio")
	b.ReportMetric(float64(upstreamBytes), "upstream-list-B")
	b.ReportMetric(float64(gatewayBytes), "gateway-list-B")
	b.ReportMetric(float64(tools), "upstream-tools")
}

// benchFleet is the gateway in front of the benchServers, and the bytes of
// the lists.
type benchFleet struct {
	github                      *upstream
	gw                          *sdk.ClientSession
	upstreamBytes, gatewayBytes int
	tools                       int
}

func newBenchFleet(tb testing.TB) *benchFleet {
	f := &benchFleet{}
	var servers []mcp.Server
	for _, file := range benchServers {
		u, name := wildUpstream(tb, file)
		if name == "github" {
			f.github = u
		}
		servers = append(servers, u.server(name))
		cs := direct(tb, u)
		f.upstreamBytes += listBytes(tb, cs)
		n, _ := listNames(tb, cs)
		f.tools += len(n)
	}
	g := testGateway(tb, "NoDefer(mcp__github__get_issue)\n", servers...)
	f.gw = client(tb, g, "", nil)
	f.gatewayBytes = listBytes(tb, f.gw)
	return f
}

// TestGatewayListBytesDoc checks the list-bytes row of docs/gateway.md
// against the fleet BenchmarkGateway measures (the bytes are deterministic;
// the timings are not, and the doc says where they were measured).
// TOOLSHELF_UPDATE=1 writes the row (the README links to it: measurements live in docs/).
func TestGatewayListBytesDoc(t *testing.T) {
	f := newBenchFleet(t)
	row := fmt.Sprintf("| tools/list bytes, gateway ÷ the %d upstream lists together (%d tools) | %.3f (%s ÷ %s B) |",
		len(benchServers), f.tools, float64(f.gatewayBytes)/float64(f.upstreamBytes), thousands(f.gatewayBytes), thousands(f.upstreamBytes))
	path := filepath.Join("..", "..", "..", "docs", "gateway.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(doc), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| tools/list bytes, gateway") })
	require.GreaterOrEqual(t, i, 0, "docs/gateway.md has no list-bytes row")
	if os.Getenv("TOOLSHELF_UPDATE") == "1" {
		lines[i] = row
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644))
		return
	}
	assert.Equal(t, row, lines[i], "regenerate with TOOLSHELF_UPDATE=1")
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func callOK(b *testing.B, cs *sdk.ClientSession, name string, args any) {
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		b.Fatal(fmt.Sprint(name, err, res))
	}
}

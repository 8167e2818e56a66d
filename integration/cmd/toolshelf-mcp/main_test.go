package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/toolshelf/toolshelf/mcpconfig"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio/mcpstdiotest"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

func TestMain(m *testing.M) {
	mcpstdiotest.Main()
	os.Exit(m.Run())
}

func runCatalog(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := filepath.Join(t.TempDir(), "server.tools.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(ctx, append(append([]string{"catalog"}, args...), "-o", out), &stdout, &stderr), stderr.String())
	assert.Empty(t, stdout.String(), "-o writes the file, not standard output")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	return b
}

// TestCatalogStdioSameToolsAsCoreLister checks that catalog --mcp-stdio,
// which reaches the server with the go-sdk client through integration/mcp
// (the path toolshelf-gateway takes), lists what the core CLI's own stdio
// lister lists for the same command: the same group name (from serverInfo),
// description, tools, descriptions and schemas (as JSON values: the go-sdk
// sorts each schema's keys, the core lister keeps the server's order).
func TestCatalogStdioSameToolsAsCoreLister(t *testing.T) {
	argv, env := mcpstdiotest.Command(mcpstdiotest.Good)
	line := "env " + env + " '" + argv[0] + "'"
	got, err := registry.ParseCatalog(runCatalog(t, "--mcp-stdio", line, "--resident"))
	require.NoError(t, err)
	want, err := registry.ParseCatalog(listFake(t).Catalog("", ""))
	require.NoError(t, err)
	assert.Equal(t, mcpconfig.GroupName(mcpstdiotest.ServerName), got.Server, "an empty --name takes the serverInfo name, as toolshelf budget does")
	assert.Equal(t, want.Server, got.Server)
	assert.Equal(t, want.Description, got.Description)
	byName := func(c *registry.Catalog) map[string]registry.Tool {
		m := map[string]registry.Tool{}
		for _, tl := range c.Tools {
			m[tl.Name] = tl
		}
		return m
	}
	g, w := byName(got), byName(want)
	require.Len(t, g, 4)
	require.Len(t, w, 4)
	for name, wt := range w {
		gt, ok := g[name]
		require.True(t, ok, name)
		assert.Equal(t, wt.Description, gt.Description, name)
		assert.JSONEq(t, string(wt.RawSchema), string(gt.RawSchema), name)
	}
}

// TestCatalogMeasuresAsBudgetMCPStdio: the file catalog writes by default
// marks every tool deferred, so the account toolshelf budget --catalog
// computes from it is the account toolshelf budget --mcp-stdio computes for
// the same server (its listing in a group deferred by default).
func TestCatalogMeasuresAsBudgetMCPStdio(t *testing.T) {
	argv, env := mcpstdiotest.Command(mcpstdiotest.Good)
	file := runCatalog(t, "--mcp-stdio", "env "+env+" '"+argv[0]+"'")
	fromFile, err := registry.ParseCatalog(file)
	require.NoError(t, err)
	viaFile := registry.New(nil)
	require.NoError(t, viaFile.Import(fromFile))

	listed, err := registry.ParseCatalog(listFake(t).Catalog("", ""))
	require.NoError(t, err)
	live := registry.New(nil)
	require.NoError(t, live.AddGroup(registry.Group{Name: listed.Server, Description: listed.Description, DefaultDefer: registry.DeferTrue}))
	require.NoError(t, live.Import(listed))

	a, b := account(t, viaFile.Snapshot()), account(t, live.Snapshot())
	assert.Equal(t, b, a)
	assert.Equal(t, len(listed.Tools), a.DeferredCount, "every listed tool is deferred")
}

// listFake lists the fake server with the core lister directly.
func listFake(t *testing.T) *mcpstdio.Listing {
	t.Helper()
	argv, env := mcpstdiotest.Command(mcpstdiotest.Good)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := mcpstdio.List(ctx, argv, &mcpstdio.Options{Env: []string{env}})
	require.NoError(t, err)
	return l
}

// account is the savings account toolshelf budget prints for snap.
func account(t *testing.T, snap *registry.Snapshot) *budget.Account {
	t.Helper()
	plan, err := (&deferral.Policy{}).Plan(snap, deferral.View{Tier: registry.TierFull})
	require.NoError(t, err)
	entry, index, err := request.EntryDefinitions(plan, nil)
	require.NoError(t, err)
	c, err := budget.NewCounter("o200k_base")
	require.NoError(t, err)
	acc, err := budget.NewAccount(plan, &budget.AccountOptions{Counter: c, Entry: entry, Index: index})
	require.NoError(t, err)
	return acc
}

// TestCatalogHTTP lists an in-process streamable HTTP server through the
// go-sdk and checks the file against the server's own tools.
func TestCatalogHTTP(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1.0.0"}, &sdk.ServerOptions{Instructions: "Web tools."})
	type args struct {
		URL string `json:"url" jsonschema:"the page to fetch"`
	}
	for _, name := range []string{"fetch", "head"} {
		sdk.AddTool(srv, &sdk.Tool{Name: name, Description: "Do " + name + " <html>."}, func(context.Context, *sdk.CallToolRequest, args) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{}, nil, nil
		})
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()

	got := runCatalog(t, "--mcp-http", hs.URL, "--name", "web")
	c, err := registry.ParseCatalog(got)
	require.NoError(t, err)
	assert.Equal(t, "web", c.Server)
	assert.Equal(t, "Web tools.", c.Description)
	reg := registry.New(nil)
	require.NoError(t, reg.Import(c))
	var names []string
	for _, tl := range reg.Snapshot().Tools() {
		names = append(names, tl.Name)
		assert.Equal(t, "Do "+tl.OriginalName+" <html>.", tl.Description)
		assert.Equal(t, registry.DeferTrue, tl.DeferLoading, "marked deferred, as budget --mcp-stdio defers a live server")
		var schema map[string]any
		require.NoError(t, json.Unmarshal(tl.RawSchema, &schema))
		assert.Equal(t, "object", schema["type"])
	}
	assert.Equal(t, []string{"mcp__web__fetch", "mcp__web__head"}, names)
	assert.Contains(t, string(got), `"Do fetch <html>."`, "no HTML escaping")
}

func TestCatalogUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no subcommand", nil},
		{"the old budget subcommand", []string{"budget", "--mcp-stdio", "x"}},
		{"no server", []string{"catalog"}},
		{"both transports", []string{"catalog", "--mcp-stdio", "x", "--mcp-http", "http://x"}},
		{"shell syntax the core splitter refuses", []string{"catalog", "--mcp-stdio", "node s.js | tee log"}},
		{"unterminated quote", []string{"catalog", "--mcp-stdio", `x "y`}},
		{"zero timeout", []string{"catalog", "--mcp-stdio", "x", "--timeout", "0s"}},
		{"extra argument", []string{"catalog", "--mcp-stdio", "x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			require.Error(t, err)
			assert.Empty(t, out.String())
		})
	}
}

// TestCatalogEverythingServer writes the catalog of the real reference
// server (a long run: see internal/testkit/longtest) and imports it.
func TestCatalogEverythingServer(t *testing.T) {
	argv := longtest.NPMServer(t, "../../../testdata/mcp-servers", "mcp-server-everything", "stdio")
	got := runCatalog(t, "--mcp-stdio", "'"+argv[0]+"' '"+argv[1]+"' "+argv[2])
	c, err := registry.ParseCatalog(got)
	require.NoError(t, err)
	assert.Equal(t, "everything", c.Server)
	reg := registry.New(nil)
	require.NoError(t, reg.Import(c))
	_, ok := reg.Snapshot().Tool("mcp__everything__echo")
	assert.True(t, ok, "the reference server's echo tool is listed")
}

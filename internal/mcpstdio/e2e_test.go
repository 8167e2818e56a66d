package mcpstdio_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/jsonx"
	"github.com/toolshelf/toolshelf/internal/mcpstdio"
	"github.com/toolshelf/toolshelf/registry"
)

// EverythingCommand returns the argv that starts the real
// @modelcontextprotocol/server-everything over stdio from
// testdata/mcp-servers (the package's "bin" is dist/index.js). Without node
// or the installed package the test is skipped with the install command;
// under CI=true it fails instead: CI installs them.
func everythingCommand(t *testing.T) []string {
	t.Helper()
	script, _ := filepath.Abs("../../testdata/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	node, err := exec.LookPath("node")
	_, statErr := os.Stat(script)
	var why string
	switch {
	case err != nil:
		why = "node is not on PATH (install Node.js 20 or later)"
	case statErr != nil:
		why = "@modelcontextprotocol/server-everything is not installed"
	default:
		return []string{node, script, "stdio"}
	}
	msg := "real MCP server test: " + why + "; run: cd testdata/mcp-servers && npm ci"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return nil
}

// TestEverythingServer lists the real reference server and imports the
// result: the tools integration/mcp's end-to-end test relies on are there,
// every tool is importable, and every schema keeps the server's bytes.
func TestEverythingServer(t *testing.T) {
	argv := everythingCommand(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	l, err := mcpstdio.List(ctx, argv, nil)
	require.NoError(t, err)
	assert.True(t, mcpstdio.KnownVersion(l.ProtocolVersion), "revision %q", l.ProtocolVersion)
	assert.Equal(t, "mcp-servers/everything", l.ServerName)
	assert.Equal(t, "everything", l.GroupName())
	assert.NotEmpty(t, l.Instructions)
	require.NotEmpty(t, l.Tools)

	c, err := registry.ParseCatalog(l.Catalog("", ""))
	require.NoError(t, err)
	require.Len(t, c.Tools, len(l.Tools))
	reg := registry.New(nil)
	require.NoError(t, reg.Import(c), "every listed tool is importable")
	snap := reg.Snapshot()
	for _, n := range []string{"echo", "get-sum", "get-env"} {
		_, ok := snap.Tool(registry.MCPName("everything", n))
		assert.True(t, ok, "everything lists %s", n)
	}
	for i, raw := range l.Tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		require.NoError(t, json.Unmarshal(raw, &tool))
		got, ok := snap.Tool(registry.MCPName("everything", tool.Name))
		require.True(t, ok, "tool %d %q", i, tool.Name)
		assert.Equal(t, string(jsonx.AppendCompact(nil, tool.InputSchema)), string(got.RawSchema), "%s keeps the server's schema bytes", tool.Name)
	}
}

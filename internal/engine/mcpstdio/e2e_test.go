package mcpstdio_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
)

// everythingCommand returns the argv that starts the real
// @modelcontextprotocol/server-everything over stdio from
// testdata/mcp-servers: a long run, see internal/testkit/longtest.
func everythingCommand(t *testing.T) []string {
	t.Helper()
	return longtest.NPMServer(t, "../../../testdata/mcp-servers", "mcp-server-everything", "stdio")
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
		_, ok := snap.Tool(toolname.MCPName("everything", n))
		assert.True(t, ok, "everything lists %s", n)
	}
	for i, raw := range l.Tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		require.NoError(t, json.Unmarshal(raw, &tool))
		got, ok := snap.Tool(toolname.MCPName("everything", tool.Name))
		require.True(t, ok, "tool %d %q", i, tool.Name)
		assert.Equal(t, string(jsonx.AppendCompact(nil, tool.InputSchema)), string(got.RawSchema), "%s keeps the server's schema bytes", tool.Name)
	}
}

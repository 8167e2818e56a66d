package mcpconfig_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolshelf/toolshelf/mcpconfig"
	"github.com/toolshelf/toolshelf/registry"
)

func TestGroupName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mcp-servers/everything", "everything"},
		{"@modelcontextprotocol/server-filesystem", "server-filesystem"},
		{"github", "github"},
		{"My Server (beta)", "My-Server-beta"},
		{"a__b", "a_b"},
		{"a-_-b", "a-b"},
		{"trailing/", "trailing"},
		{"", "server"},
		{"  ", "server"},
		{"!!!", "server"},
		{"builtin", "server"},
		{"self-built", "server"},
		{"ünïcödé", "n-c-d"},
		{"a-very-long-server-name-that-goes-on-and-on", "a-very-long-server-name"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := mcpconfig.GroupName(tt.in)
			assert.Equal(t, tt.want, got)
			// Whatever the input, the result is a group the registry takes.
			assert.NoError(t, registry.New(nil).AddGroup(registry.Group{Name: got}))
		})
	}
}

func FuzzGroupName(f *testing.F) {
	f.Add("mcp-servers/everything")
	f.Add("__/__")
	f.Fuzz(func(t *testing.T, s string) {
		assert.NoError(t, registry.New(nil).AddGroup(registry.Group{Name: mcpconfig.GroupName(s)}), "%q", s)
	})
}

// TestServerDescription pins the one rule both MCP clients describe a
// server's group by: instructions, then serverInfo description, title and

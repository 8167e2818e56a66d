package registry_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
	"github.com/toolshelf/toolshelf/registry"
)

// name, the first not blank, trimmed; never the version.
func TestServerDescription(t *testing.T) {
	tests := []struct {
		instructions, description, title, name, want string
	}{
		{"Use me for files.", "A file server", "Files", "fs", "Use me for files."},
		{"  ", " A file server ", "Files", "fs", "A file server"},
		{"", "", "Files", "fs", "Files"},
		{"", "", "", "mcp-servers/fs", "mcp-servers/fs"},
		{"", "", "", "", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, registry.ServerDescription(tt.instructions, tt.description, tt.title, tt.name))
		l := mcpstdio.Listing{Instructions: tt.instructions, ServerDescription: tt.description, ServerTitle: tt.title, ServerName: tt.name, ServerVersion: "9.9.9"}
		assert.Equal(t, tt.want, l.Description(), "a listing describes its server by the same rule")
	}
}

package mcpconfig

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

// TestReliabilityDocBound keeps docs/reliability.md's row for the file
// bound equal to the constant.
func TestReliabilityDocBound(t *testing.T) {
	b, err := os.ReadFile("../docs/reliability.md")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 3 && strings.TrimSpace(cells[1]) == "`mcpServers` file" {
			assert.Equal(t, textfmt.Thousands(maxBytes)+" bytes", strings.TrimSpace(cells[2]))
			return
		}
	}
	t.Fatal("docs/reliability.md has no `mcpServers` file row")
}

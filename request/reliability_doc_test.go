package request

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

// TestReliabilityDocReplyBounds keeps the reply bounds table of
// docs/reliability.md in step with the constants it lists.
func TestReliabilityDocReplyBounds(t *testing.T) {
	b, err := os.ReadFile("../docs/reliability.md")
	require.NoError(t, err)
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 3 {
			rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	for bound, want := range map[string]string{
		"whole response body":                textfmt.Thousands(defaultMaxReplyBytes) + " bytes",
		"event stream, SSE framing included": textfmt.Thousands(defaultMaxStreamBytes) + " bytes",
		"one server-sent event":              textfmt.Thousands(maxStreamEvent) + " bytes",
		"tool calls, content blocks or output items of one stream; function calls and kept parts of one Gemini reply, whole or streamed": textfmt.Thousands(maxStreamParts),
	} {
		assert.Equal(t, want, rows[bound], bound)
	}
}

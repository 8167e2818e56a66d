package cedict

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

// TestREADMEFigures recomputes the size table of README.md from the
// embedded file.
func TestREADMEFigures(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	readme := string(raw)
	text := embeddedText(t)
	heads, translated, trans := 0, 0, 0
	for line := range strings.Lines(string(text)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		heads++
		if _, rest, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t"); ok {
			translated++
			trans += 1 + strings.Count(rest, "|")
		}
	}
	for _, row := range []string{
		fmt.Sprintf("| headwords kept | %s |", textfmt.Thousands(heads)),
		fmt.Sprintf("| with translations | %s |", textfmt.Thousands(translated)),
		fmt.Sprintf("| translations | %s |", textfmt.Thousands(trans)),
		fmt.Sprintf("| text | %s bytes |", textfmt.Thousands(len(text))),
		fmt.Sprintf("| embedded gzip (`data/cedict-en.txt.gz`) | %s bytes |", textfmt.Thousands(len(packed))),
	} {
		assert.Contains(t, readme, row)
	}
}

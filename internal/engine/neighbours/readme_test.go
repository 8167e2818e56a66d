package neighbours

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/neighbours/internal/glove"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

// TestREADMEFigures recomputes the figures README.md states about the
// embedded data and the generator's options, so the page cannot drift
// from the file.
func TestREADMEFigures(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	flat := strings.Join(strings.Fields(string(readme)), " ")
	tb := load()
	total := 0
	for _, nbs := range tb.word {
		total += len(nbs)
	}
	text := string(embeddedText(t))
	dropped := -1
	for line := range strings.Lines(text) {
		if n, ok := strings.CutPrefix(line, "# antonyms dropped "); ok {
			dropped, err = strconv.Atoi(strings.TrimSpace(n))
			require.NoError(t, err)
		}
	}
	require.GreaterOrEqual(t, dropped, 0, "the header states the antonyms dropped")
	opt := glove.DefaultOptions
	for _, want := range []string{
		fmt.Sprintf("| words with neighbours | %s |", textfmt.Thousands(len(tb.word))),
		fmt.Sprintf("| neighbours | %s |", textfmt.Thousands(total)),
		fmt.Sprintf("| stems (`OfStem` keys) | %s |", textfmt.Thousands(len(tb.stem))),
		fmt.Sprintf("| antonyms dropped | %s |", textfmt.Thousands(dropped)),
		fmt.Sprintf("| text | %s bytes |", textfmt.Thousands(len(text))),
		fmt.Sprintf("| embedded gzip (`data/glove-nb.txt.gz`) | %s bytes |", textfmt.Thousands(len(packed))),
		fmt.Sprintf("the **%s** most frequent words", textfmt.Thousands(opt.Vocab)),
		fmt.Sprintf("at least **%d** long", opt.MinLen),
		fmt.Sprintf("its best **%d** neighbours", opt.K),
		fmt.Sprintf("at least **0.%02d**", opt.MinCos),
		fmt.Sprintf("%s × %s × 100", textfmt.Thousands(opt.Vocab), textfmt.Thousands(opt.Vocab)),
	} {
		// Compare with white space folded, so line wrapping does not matter.
		assert.True(t, strings.Contains(flat, strings.Join(strings.Fields(want), " ")), "README.md lacks %q", want)
	}
	assert.True(t, opt.Antonyms, "README.md says antonyms are dropped")
	assert.False(t, opt.Mutual, "README.md says mutual neighbours were not kept")
}

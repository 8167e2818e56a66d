package lexicon

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/lexicon/internal/wordnet"
)

// thousands formats n with comma separators, as README.md writes numbers.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestREADMEFigures recomputes the figures README.md states about the
// embedded data, so the page cannot drift from the file.
func TestREADMEFigures(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	flat := strings.Join(strings.Fields(string(readme)), " ")
	tb := load()
	total, kinds, ranks, capped := 0, map[Kind]int{}, map[uint8]int{}, 0
	for _, rels := range tb.word {
		total += len(rels)
		for _, r := range rels {
			kinds[r.Kind]++
			ranks[r.Rank]++
		}
		if len(rels) == wordnet.DefaultOptions.MaxPerWord {
			capped++
		}
	}
	for _, want := range []string{
		fmt.Sprintf("| lemmas kept | %s |", thousands(len(tb.word))),
		fmt.Sprintf("| relations | %s (%s synonyms, %s derivations) |", thousands(total), thousands(kinds[Synonym]), thousands(kinds[Derivation])),
		fmt.Sprintf("| by rank 1 / 2 / 3 | %s / %s / %s |", thousands(ranks[1]), thousands(ranks[2]), thousands(ranks[3])),
		fmt.Sprintf("| stems (`RelatedStem` keys) | %s |", thousands(len(tb.stem))),
		fmt.Sprintf("| text | %s bytes |", thousands(len(embeddedText(t)))),
		fmt.Sprintf("| embedded gzip (`data/wordnet-syn.txt.gz`) | %s bytes |", thousands(len(packed))),
		fmt.Sprintf("at most %d relations per lemma", wordnet.DefaultOptions.MaxPerWord),
		fmt.Sprintf("%s lemmas reach it", thousands(capped)),
		fmt.Sprintf("first **%d** senses count", wordnet.DefaultOptions.Senses),
		fmt.Sprintf("at least %d letters", wordnet.DefaultOptions.MinLen),
	} {
		// Compare with white space folded, so line wrapping does not matter.
		assert.True(t, strings.Contains(flat, strings.Join(strings.Fields(want), " ")), "README.md lacks %q", want)
	}
}

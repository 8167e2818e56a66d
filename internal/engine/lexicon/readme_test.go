package lexicon

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/lexicon/internal/wordnet"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

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
		fmt.Sprintf("| lemmas kept | %s |", textfmt.Thousands(len(tb.word))),
		fmt.Sprintf("| relations | %s (%s synonyms, %s derivations) |", textfmt.Thousands(total), textfmt.Thousands(kinds[Synonym]), textfmt.Thousands(kinds[Derivation])),
		fmt.Sprintf("| by rank 1 / 2 / 3 | %s / %s / %s |", textfmt.Thousands(ranks[1]), textfmt.Thousands(ranks[2]), textfmt.Thousands(ranks[3])),
		fmt.Sprintf("| stems (`RelatedStem` keys) | %s |", textfmt.Thousands(len(tb.stem))),
		fmt.Sprintf("| text | %s bytes |", textfmt.Thousands(len(embeddedText(t)))),
		fmt.Sprintf("| embedded gzip (`data/wordnet-syn.txt.gz`) | %s bytes |", textfmt.Thousands(len(packed))),
		fmt.Sprintf("at most %d relations per lemma", wordnet.DefaultOptions.MaxPerWord),
		fmt.Sprintf("%s lemmas reach it", textfmt.Thousands(capped)),
		fmt.Sprintf("first **%d** senses count", wordnet.DefaultOptions.Senses),
		fmt.Sprintf("at least %d letters", wordnet.DefaultOptions.MinLen),
	} {
		// Compare with white space folded, so line wrapping does not matter.
		assert.True(t, strings.Contains(flat, strings.Join(strings.Fields(want), " ")), "README.md lacks %q", want)
	}
}

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
	opt := wordnet.DefaultOptions
	total, kinds, ranks, capped := 0, map[Kind]int{}, map[uint8]int{}, 0
	glossLemmas, glossCapped, glossRank2 := 0, 0, 0
	for _, rels := range tb.word {
		total += len(rels)
		n := map[Kind]int{}
		for _, r := range rels {
			kinds[r.Kind]++
			ranks[r.Rank]++
			n[r.Kind]++
			if r.Kind == Gloss && r.Rank == 2 {
				glossRank2++
			}
		}
		if n[Synonym]+n[Derivation] == opt.MaxPerWord {
			capped++
		}
		if n[Gloss] > 0 {
			glossLemmas++
		}
		if n[Gloss] == opt.MaxGloss {
			glossCapped++
		}
	}
	for _, want := range []string{
		fmt.Sprintf("| lemmas kept | %s |", textfmt.Thousands(len(tb.word))),
		fmt.Sprintf("| relations | %s (%s synonyms, %s derivations, %s gloss words, %s attributes) |", textfmt.Thousands(total),
			textfmt.Thousands(kinds[Synonym]), textfmt.Thousands(kinds[Derivation]), textfmt.Thousands(kinds[Gloss]), textfmt.Thousands(kinds[Attribute])),
		fmt.Sprintf("| lemmas with gloss words | %s (%s at the cap of %d; %s gloss words from rank-2 senses) |",
			textfmt.Thousands(glossLemmas), textfmt.Thousands(glossCapped), opt.MaxGloss, textfmt.Thousands(glossRank2)),
		fmt.Sprintf("the definitions of a lemma's first **%d** senses", opt.GlossSenses),
		fmt.Sprintf("a tag count of at least %d", opt.GlossMinCount),
		fmt.Sprintf("at most %d gloss words per lemma", opt.MaxGloss),
		fmt.Sprintf("| by rank 1 / 2 / 3 | %s / %s / %s |", textfmt.Thousands(ranks[1]), textfmt.Thousands(ranks[2]), textfmt.Thousands(ranks[3])),
		fmt.Sprintf("| stems (`RelatedStem` keys) | %s |", textfmt.Thousands(len(tb.stem))),
		fmt.Sprintf("| text | %s bytes |", textfmt.Thousands(len(embeddedText(t)))),
		fmt.Sprintf("| embedded gzip (`data/wordnet-syn.txt.gz`) | %s bytes |", textfmt.Thousands(len(packed))),
		fmt.Sprintf("at most %d relations per lemma", opt.MaxPerWord),
		fmt.Sprintf("%s lemmas reach it", textfmt.Thousands(capped)),
		fmt.Sprintf("first **%d** senses count", opt.Senses),
		fmt.Sprintf("at least %d letters", opt.MinLen),
	} {
		// Compare with white space folded, so line wrapping does not matter.
		assert.True(t, strings.Contains(flat, strings.Join(strings.Fields(want), " ")), "README.md lacks %q", want)
	}
}

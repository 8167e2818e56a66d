package toolsearch

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolshelf/toolshelf/internal/engine/lexicon"
)

// TestLexiconWeightKinds checks the WordNet weights by kind: derivations
// above synonyms, synonyms falling with the sense's rank, and the further
// kinds the generator can emit (hypernyms, hyponyms, ...), which were
// measured and not kept (docs/search-quality.md), at 0 — were the lexicon
// regenerated with them, they must not count as synonyms.
func TestLexiconWeightKinds(t *testing.T) {
	for rank := uint8(1); rank <= 3; rank++ {
		syn := lexiconWeight(lexicon.Relation{Word: "x", Kind: lexicon.Synonym, Rank: rank})
		assert.Greater(t, syn, 0.0, "synonym, rank %d", rank)
		assert.Less(t, syn, lexiconWeight(lexicon.Relation{Word: "x", Kind: lexicon.Derivation, Rank: rank}), "rank %d", rank)
		if rank > 1 {
			assert.Less(t, syn, lexiconWeight(lexicon.Relation{Word: "x", Kind: lexicon.Synonym, Rank: rank - 1}), "rank %d", rank)
		}
		for k := lexicon.Hypernym; k <= lexicon.AlsoSee; k++ {
			assert.Zero(t, lexiconWeight(lexicon.Relation{Word: "x", Kind: k, Rank: rank}), "%s, rank %d", k, rank)
		}
	}
	assert.Zero(t, lexiconWeight(lexicon.Relation{Word: "x", Kind: lexicon.Synonym, Rank: lexMaxRank + 1}))
}

package toolsearch

import "github.com/toolshelf/toolshelf/search"

// Abstains reports whether the best hit (hits come best first) is not a
// credible match: tool_search then loads nothing, and answers "not sure"
// with the candidates or, below the floor of [NothingFits], that nothing
// fits. An empty list does not abstain (it is a plain miss).
func Abstains(hits []search.Hit) bool {
	return len(hits) > 0 && !hits[0].Fit.Credible()
}

// nothingFitsEvidence is the floor below which a search that is not sure
// says that nothing fits: no candidate's evidence with its server counted
// ([search.Fit.Group]) reaches it (0.8 of one word found in exactly one
// tool). Chosen on the tune halves at every catalog size
// (docs/search-quality.md, TestNothingFitsFloor): the highest floor at
// which every positive set says "nothing fits" on at most 2% of its
// requests, with one step of the grid to spare.
const nothingFitsEvidence = 0.80

// NothingFits reports whether tool_search answers that no tool fits: the
// best hit is not credible and its evidence is below the floor. Otherwise
// a search that [Abstains] answers "not sure" and lists its candidates.
func NothingFits(hits []search.Hit) bool {
	if !Abstains(hits) {
		return false
	}
	for _, h := range hits {
		if h.Fit.Group >= nothingFitsEvidence {
			return false
		}
	}
	return true
}

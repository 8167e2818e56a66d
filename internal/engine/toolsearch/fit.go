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
// says that nothing fits: a best hit whose evidence is below it (less than
// 0.85 of one word found in exactly one tool). Chosen on the tune halves
// (docs/search-quality.md): the floor with the most no-match queries told
// "nothing fits" while at most 2% of any positive set's queries are.
const nothingFitsEvidence = 0.85

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

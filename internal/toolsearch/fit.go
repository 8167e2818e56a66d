package toolsearch

import "github.com/toolshelf/toolshelf/search"

// Abstains reports whether the best hit (hits come best first) is not a
// credible match: tool_search then answers that nothing fits, naming the
// closest tools without loading them. An empty list does not abstain (it
// is a plain miss).
func Abstains(hits []search.Hit) bool {
	return len(hits) > 0 && !hits[0].Fit.Credible()
}

package toolsearch

// A Fit says how credible a hit is, on two scales that mean the same in
// every catalog, so that tool_search can say "nothing fits" instead of
// loading the schemas of the least bad tools.
//
// Evidence is the query mass the tool covers (see [BM25F]: each query
// word's weight × IDF, up to what the tool earned for it) in units of the
// IDF of a term exactly one tool has, log(1 + (N-0.5)/1.5): one query word
// found in one tool only, and found there fully, is worth 1 in any catalog;
// a word half of 293 tools have, about 0.13. It grows with the number of
// distinct, specific words the tool matches, not with the catalog.
//
// Coverage is the share of the query's mass the tool covers, a query word
// counting with its own mass even when the catalog lacks it ("bored",
// "晚安") or knows it only through weak relations (below half the word's
// weight: WordNet's rarer senses, GloVe neighbours, shared Chinese
// characters). A request whose specific words no tool has is not covered,
// however well one generic word of it matches.
type Fit struct {
	// Judged is false for a ranker that does not compute a fit: its hits
	// are always credible.
	Judged   bool    `json:"-"`
	Evidence float64 `json:"evidence"`
	Coverage float64 `json:"coverage"`
	// Name is the share of the tool's name (by IDF) the query covers.
	Name float64 `json:"name"`
}

// The abstention rule: a hit is credible unless its evidence is below
// minEvidence, or below strongEvidence while it covers less than
// minCoverage of the query and at most weakName of its own name. Set on
// the tune halves: of the grids tried (docs/search-quality.md), the
// thresholds that abstain on at least 90% of the no-match set's tune half
// (testdata/queries/nomatch.jsonl, over the dev catalogs) while abstaining
// on the fewest queries of the positive sets' tune halves. A word found in
// exactly one tool (evidence 1) is credible when it is in that
// tool's name or covers enough of the query: "restaurant" in a tool named
// for restaurants, not "robots" in a fetch tool's fine print.
const (
	minEvidence    = 0.95
	strongEvidence = 1.05
	minCoverage    = 0.4
	weakName       = 0.3
)

// Credible reports whether the hit is a credible match for its query.
func (f Fit) Credible() bool {
	if !f.Judged {
		return true
	}
	if f.Evidence < minEvidence {
		return false
	}
	return f.Evidence >= strongEvidence || f.Coverage >= minCoverage || f.Name > weakName
}

// Abstains reports whether the best hit (hits come best first) is not a
// credible match: tool_search then answers that nothing fits, naming the
// closest tools without loading them. An empty list does not abstain (it
// is a plain miss).
func Abstains(hits []Hit) bool {
	return len(hits) > 0 && !hits[0].Fit.Credible()
}

package search

import (
	"context"
	"regexp"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// keywordIndex and PlainBM25 are the baselines docs/search-quality.md
// compares against, run on the same queries.

// keywordIndex is keyword overlap as Pydantic AI ships it: tokens [a-z0-9]+
// of the lower-cased name and description; a tool scores the number of
// distinct query tokens it shares; top 10.
type keywordIndex struct {
	names  []string
	tokens []map[string]bool
}

var wordRE = regexp.MustCompile(`[a-z0-9]+`)

func newKeywordIndex(tools []*registry.Tool) *keywordIndex {
	ix := &keywordIndex{}
	for _, t := range tools {
		set := map[string]bool{}
		for _, w := range wordRE.FindAllString(strings.ToLower(t.Name+" "+t.Description), -1) {
			set[w] = true
		}
		ix.names = append(ix.names, t.Name)
		ix.tokens = append(ix.tokens, set)
	}
	return ix
}

func (ix *keywordIndex) Search(_ context.Context, queries []string, limit int) ([]Hit, error) {
	q := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(strings.Join(queries, " ")), -1) {
		q[w] = true
	}
	var hits []Hit
	for i, set := range ix.tokens {
		n := 0
		for w := range q {
			if set[w] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, Hit{ix.names[i], float64(n)})
		}
	}
	return topHits(hits, limit), nil
}

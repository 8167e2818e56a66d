package toolsearch

import (
	"context"
	"regexp"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// keywordIndex and PlainBM25 are the baselines docs/search-quality.md
// compares against, run on the same queries.

// keywordIndex is keyword overlap as Pydantic AI ships it: tokens [a-z0-9]+
// of the lower-cased name and description; a tool scores the number of
// distinct query tokens it shares; top 10.
type keywordIndex struct {
	names    []string
	postings map[string][]int32
}

var wordRE = regexp.MustCompile(`[a-z0-9]+`)

func newKeywordIndex(tools []*registry.Tool) *keywordIndex {
	ix := &keywordIndex{postings: map[string][]int32{}}
	for i, t := range tools {
		seen := map[string]bool{}
		for _, w := range wordRE.FindAllString(strings.ToLower(t.Name+" "+t.Description), -1) {
			if !seen[w] {
				seen[w] = true
				ix.postings[w] = append(ix.postings[w], int32(i))
			}
		}
		ix.names = append(ix.names, t.Name)
	}
	return ix
}

func (ix *keywordIndex) Search(_ context.Context, queries []string, limit int) ([]search.Hit, error) {
	q := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(strings.Join(queries, " ")), -1) {
		q[w] = true
	}
	count := make([]int, len(ix.names))
	for w := range q {
		for _, d := range ix.postings[w] {
			count[d]++
		}
	}
	var hits []search.Hit
	for i, n := range count {
		if n > 0 {
			hits = append(hits, search.Hit{Name: ix.names[i], Score: float64(n)})
		}
	}
	return topHits(hits, limit), nil
}

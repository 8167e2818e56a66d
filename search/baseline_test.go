package search

import (
	"context"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// The two baselines the README compares against, run on the same queries.

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

// plainBM25 is BM25 (k1 1.2, b 0.75) over one field: the name split into
// words plus the description, lower-cased, CJK as character bigrams; no
// stemming, stop words, weights or vocabulary; top 5.
type plainBM25 struct {
	names []string
	tf    []map[string]float64
	dl    []float64
	avg   float64
	df    map[string]float64
}

func plainTerms(s string) []string {
	var out []string
	pieces(s, func(p piece) {
		switch {
		case p.cjk:
			bigrams(p.text, func(b string) { out = append(out, b) })
		case !p.compound:
			out = append(out, strings.ToLower(p.text))
		}
	})
	return out
}

func newPlainBM25(tools []*registry.Tool) *plainBM25 {
	ix := &plainBM25{df: map[string]float64{}}
	for _, t := range tools {
		tf := map[string]float64{}
		ts := plainTerms(t.Name + " " + t.Description)
		for _, w := range ts {
			tf[w]++
		}
		for w := range tf {
			ix.df[w]++
		}
		ix.names = append(ix.names, t.Name)
		ix.tf = append(ix.tf, tf)
		ix.dl = append(ix.dl, float64(len(ts)))
		ix.avg += float64(len(ts))
	}
	ix.avg /= float64(len(tools))
	return ix
}

func (ix *plainBM25) Search(_ context.Context, queries []string, limit int) ([]Hit, error) {
	n := float64(len(ix.names))
	q := plainTerms(strings.Join(queries, " "))
	var hits []Hit
	for i, tf := range ix.tf {
		s := 0.0
		for _, w := range q {
			f := tf[w]
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-ix.df[w]+0.5)/(ix.df[w]+0.5))
			s += idf * f * 2.2 / (f + 1.2*(1-0.75+0.75*ix.dl[i]/ix.avg))
		}
		if s > 0 {
			hits = append(hits, Hit{ix.names[i], s})
		}
	}
	return topHits(hits, limit), nil
}

func topHits(hits []Hit, limit int) []Hit {
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Name < hits[j].Name
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

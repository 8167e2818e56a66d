package toolsearch

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// PlainBM25 is the reference [search.Ranker] tool_search is measured against:
// textbook BM25 (k1 1.2, b 0.75) over one field, the name split into words
// plus the description, lower-cased, CJK as character bigrams; no stemming,
// stop words, field weights or vocabulary. Each distinct query term counts
// once, however often the query repeats it. It is a yardstick, not a
// production ranker: its index walks postings to keep evaluations quick,
// and the speed benchmarks compare against the same scoring done as a scan
// over every tool, as a plain implementation does.
type PlainBM25 struct{}

// Index builds the reference index over tools.
func (PlainBM25) Index(ctx context.Context, tools []*registry.Tool) (search.Index, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return newPlainInverted(newPlainBM25(tools)), nil
}

// plainInverted scores exactly as plainBM25 does (the same additions in the
// same order for every tool, so the same floats) through postings.
type plainInverted struct {
	*plainBM25
	postings map[string][]int32
}

func newPlainInverted(p *plainBM25) *plainInverted {
	ix := &plainInverted{plainBM25: p, postings: map[string][]int32{}}
	for d, tf := range p.tf {
		for w := range tf {
			ix.postings[w] = append(ix.postings[w], int32(d))
		}
	}
	return ix
}

func (ix *plainInverted) Search(_ context.Context, queries []string, limit int) ([]search.Hit, error) {
	n := float64(len(ix.names))
	q := plainTerms(strings.Join(queries, " "))
	slices.Sort(q)
	q = slices.Compact(q)
	scores := make([]float64, len(ix.names))
	var touched []int32
	for _, w := range q {
		idf := math.Log(1 + (n-ix.df[w]+0.5)/(ix.df[w]+0.5))
		for _, d := range ix.postings[w] {
			f := ix.tf[d][w]
			if scores[d] == 0 {
				touched = append(touched, d)
			}
			scores[d] += idf * f * 2.2 / (f + 1.2*(1-0.75+0.75*ix.dl[d]/ix.avg))
		}
	}
	var hits []search.Hit
	for _, d := range touched {
		if scores[d] > 0 {
			hits = append(hits, search.Hit{Name: ix.names[d], Score: scores[d]})
		}
	}
	return topHits(hits, limit), nil
}

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
	if len(tools) > 0 {
		ix.avg /= float64(len(tools))
	}
	if ix.avg == 0 {
		ix.avg = 1
	}
	return ix
}

func (ix *plainBM25) Search(_ context.Context, queries []string, limit int) ([]search.Hit, error) {
	n := float64(len(ix.names))
	// Distinct terms: a repeated word ("PR" in two queries of one call)
	// must not count twice, or the baseline is weaker than textbook BM25.
	q := plainTerms(strings.Join(queries, " "))
	slices.Sort(q)
	q = slices.Compact(q)
	var hits []search.Hit
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
			hits = append(hits, search.Hit{Name: ix.names[i], Score: s})
		}
	}
	return topHits(hits, limit), nil
}

func topHits(hits []search.Hit, limit int) []search.Hit {
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

package search

import (
	"context"
	"fmt"
	"sort"

	"github.com/toolshelf/toolshelf/registry"
)

// Defaults of [Hybrid].
const (
	fusionK     = 60 // reciprocal-rank fusion's constant, as in Cormack et al. (2009)
	fusionDepth = 50 // how deep each ranking is read
)

// Hybrid is a [Ranker] that fuses the lexical ranking with a second one (an
// embedding model's, say) by reciprocal-rank fusion: a tool scores
// Σ 1/(K + rank) over the rankings that return it within Depth. Ranks, not
// scores, are fused: a BM25 score and a cosine live on scales that do not
// compare, and a rank means the same in both. A tool found by one ranking
// only still counts, at its rank there.
//
// When the second ranking fails (an endpoint down or slow), the search
// returns the lexical ranking alone, as if there were no second one. Hits
// carry the lexical ranking's [Fit] when it returned the tool; a tool only
// the second ranking found is not judged, so tool_search abstains only when
// the lexical ranking's best tool is also first after fusion and not
// credible.
type Hybrid struct {
	// Lexical is the first ranking; nil means the built-in lexical ranker
	// (BM25F) with the shipped vocabulary, which a session fills in (outside
	// a session, Index with a nil Lexical returns [ErrOptions]).
	Lexical Ranker
	// Second is the ranking fused with it; nil makes Hybrid the lexical
	// ranking alone.
	Second Ranker
	// K is the fusion constant and Depth how many hits of each ranking are
	// read; 0 means 60 (as in Cormack et al., 2009) and 50.
	K     float64
	Depth int
}

// Index builds both indexes. A second ranker that fails to build makes the
// index lexical only.
func (h *Hybrid) Index(ctx context.Context, tools []*registry.Tool) (Index, error) {
	if h.Lexical == nil {
		return nil, fmt.Errorf("%w: Hybrid.Lexical is nil outside a session", ErrOptions)
	}
	li, err := h.Lexical.Index(ctx, tools)
	if err != nil {
		return nil, err
	}
	ix := &hybridIndex{lex: li, k: h.K, depth: h.Depth}
	if ix.k <= 0 {
		ix.k = fusionK
	}
	if ix.depth <= 0 {
		ix.depth = fusionDepth
	}
	if h.Second != nil {
		if si, err := h.Second.Index(ctx, tools); err == nil {
			ix.second = si
		}
	}
	return ix, nil
}

type hybridIndex struct {
	lex, second Index
	k           float64
	depth       int
}

// Search fuses the two rankings; see [Hybrid].
func (ix *hybridIndex) Search(ctx context.Context, queries []string, limit int) ([]Hit, error) {
	if limit <= 0 {
		return nil, nil
	}
	depth := max(limit, ix.depth)
	lex, err := ix.lex.Search(ctx, queries, depth)
	if err != nil {
		return nil, err
	}
	if ix.second == nil {
		return lex[:min(len(lex), limit)], nil
	}
	sec, err := ix.second.Search(ctx, queries, depth)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return lex[:min(len(lex), limit)], nil // the second ranking failed: lexical alone
	}
	return fuse(lex, sec, ix.k, limit), nil
}

// fuse merges two rankings by reciprocal rank: score descending, then name.
func fuse(a, b []Hit, k float64, limit int) []Hit {
	out := make([]Hit, 0, len(a)+len(b))
	at := make(map[string]int, len(a)+len(b))
	for r, h := range a {
		at[h.Name] = len(out)
		out = append(out, Hit{Name: h.Name, Score: 1 / (k + float64(r+1)), Fit: h.Fit})
	}
	for r, h := range b {
		s := 1 / (k + float64(r+1))
		if i, ok := at[h.Name]; ok {
			out[i].Score += s
			continue
		}
		at[h.Name] = len(out)
		out = append(out, Hit{Name: h.Name, Score: s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Name < out[j].Name
	})
	return out[:min(len(out), limit)]
}

package search

import (
	"context"
	"fmt"
	"sort"

	"github.com/toolshelf/toolshelf/internal/engine/searchnote"
	"github.com/toolshelf/toolshelf/registry"
)

// Defaults of [Hybrid].
const (
	fusionK      = 10 // each ranking's constant k
	secondWeight = 4  // the second ranking's weight, against the lexical one's 1
	fusionDepth  = 50 // how deep each ranking is read
)

// Hybrid is a [Ranker] that fuses the lexical ranking with a second one (an
// embedding model's, say) by weighted reciprocal-rank fusion: a tool scores
// Σ weight/(k + rank) over the rankings that return it within Depth, each
// ranking with its own weight and k. Ranks, not scores, are fused: a BM25
// score and a cosine live on scales that do not compare, and a rank means
// the same in both. A tool found by one ranking only still counts, at its
// rank there.
//
// The defaults favour the second ranking, which a harness configures
// because it is the better one: weight 4 against the lexical ranking's 1,
// and k = 10 for both. On a public vendor tool set measured with a strong
// embedding model (issue 38), equal weights with k = 60 (Cormack et al.,
// 2009) fell below the embeddings alone (R@1 .885 against .930 on one
// half), while about 4:1 with k ≈ 10 was slightly above them; the lexical
// ranking still breaks the second one's near ties and finds what it
// misses. Set the weights equal and K to 60 for the classic fusion.
//
// Each ranking is read to Depth hits, whatever it returns, and a name
// counts once per ranking, at its best rank there: a ranking that repeats
// a name cannot lift it.
//
// When the second ranking fails (an endpoint down or slow), panics, or
// its index could not be built, the search returns the lexical ranking
// alone, as if there were no second one, and says so in the dispatcher's
// "searched" event (execute.EventSearched, its Detail). Hits
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
	// LexicalWeight and SecondWeight scale each ranking's reciprocal ranks;
	// 0 means 1 and 4. Negative weights are an [ErrOptions].
	LexicalWeight, SecondWeight float64
	// LexicalK and SecondK are each ranking's fusion constant: a larger k
	// flattens the difference between its first ranks. 0 means 10.
	LexicalK, SecondK float64
	// Depth is how many hits of each ranking are read; 0 means 50.
	Depth int
}

// Index builds both indexes. A second ranker that fails to build makes the
// index lexical only.
func (h *Hybrid) Index(ctx context.Context, tools []*registry.Tool) (Index, error) {
	if h.Lexical == nil {
		return nil, fmt.Errorf("%w: Hybrid.Lexical is nil outside a session", ErrOptions)
	}
	if h.LexicalWeight < 0 || h.SecondWeight < 0 || h.LexicalK < 0 || h.SecondK < 0 {
		return nil, fmt.Errorf("%w: Hybrid weights and k must not be negative", ErrOptions)
	}
	li, err := h.Lexical.Index(ctx, tools)
	if err != nil {
		return nil, err
	}
	or := func(v, def float64) float64 {
		if v == 0 {
			return def
		}
		return v
	}
	ix := &hybridIndex{lex: li, depth: h.Depth, w: fusion{
		lexW: or(h.LexicalWeight, 1), secW: or(h.SecondWeight, secondWeight),
		lexK: or(h.LexicalK, fusionK), secK: or(h.SecondK, fusionK),
	}}
	if ix.depth <= 0 {
		ix.depth = fusionDepth
	}
	if h.Second != nil {
		var si Index
		err := safely(func() (err error) { si, err = h.Second.Index(ctx, tools); return err })
		switch {
		case err != nil:
			ix.secondErr = err
		case si == nil:
			ix.secondErr = fmt.Errorf("its Index returned no index")
		default:
			ix.second = si
		}
	}
	return ix, nil
}

type hybridIndex struct {
	lex, second Index
	secondErr   error // why the second index is missing
	w           fusion
	depth       int
}

// safely runs f, turning a panic into an error.
func safely(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return f()
}

// degraded notes on the search's event that the lexical ranking answered
// alone, and why.
func degraded(ctx context.Context, why error) {
	msg := why.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	searchnote.Add(ctx, "hybrid: the second ranking failed, the lexical ranking answered alone: "+msg)
}

// fusion is each ranking's weight and k.
type fusion struct{ lexW, secW, lexK, secK float64 }

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
		if ix.secondErr != nil {
			degraded(ctx, fmt.Errorf("its index: %w", ix.secondErr))
		}
		return lex[:min(len(lex), limit)], nil
	}
	var sec []Hit
	err = safely(func() (err error) { sec, err = ix.second.Search(ctx, queries, depth); return err })
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		degraded(ctx, err)
		return lex[:min(len(lex), limit)], nil // the second ranking failed: lexical alone
	}
	return fuse(lex[:min(len(lex), depth)], sec[:min(len(sec), depth)], ix.w, limit), nil
}

// fuse merges two rankings by weighted reciprocal rank: score descending,
// then name.
func fuse(a, b []Hit, w fusion, limit int) []Hit {
	out := make([]Hit, 0, len(a)+len(b))
	at := make(map[string]int, len(a)+len(b))
	for r, h := range a {
		if _, ok := at[h.Name]; ok {
			continue // a name counts once per ranking, at its best rank
		}
		at[h.Name] = len(out)
		out = append(out, Hit{Name: h.Name, Score: w.lexW / (w.lexK + float64(r+1)), Fit: h.Fit})
	}
	seen := make(map[string]bool, len(b))
	for r, h := range b {
		if seen[h.Name] {
			continue
		}
		seen[h.Name] = true
		s := w.secW / (w.secK + float64(r+1))
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

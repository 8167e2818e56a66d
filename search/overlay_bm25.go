package search

import "math"

// calibrator is implemented by an index whose scores depend on its corpus
// (BM25's IDF): it rescores over, an index the same ranker built over a
// session's few self-built tools, as if those tools had joined its own
// corpus, so that merged scores compare. Without it, a word found in one
// self-built tool of two weighs a fraction of a word found in one catalog
// tool of a thousand, and the session's own tool ranks below weak matches.
type calibrator interface {
	calibrate(over Index) Index
}

// calibrate returns over with every posting's IDF replaced by the IDF of
// the union: document frequencies and the document count of both indexes.
// The receiver is left as it is (its tools see the overlay's few documents
// as absent, a difference of a few in thousands). Field lengths keep the
// overlay's own averages.
func (ix *bm25Index) calibrate(over Index) Index {
	o, ok := over.(*bm25Index)
	if !ok {
		return over
	}
	nb, no := float64(len(ix.names)), float64(len(o.names))
	c := &bm25Index{vocab: o.vocab, names: o.names, nameLen: o.nameLen, dict: o.dict, postings: make([][]posting, len(o.postings))}
	for term, id := range o.dict {
		dfo := float64(len(o.postings[id]))
		dfb := 0.0
		if bid, ok := ix.dict[term]; ok {
			dfb = float64(len(ix.postings[bid]))
		}
		local := math.Log(1 + (no-dfo+0.5)/(dfo+0.5))
		union := math.Log(1 + (nb+no-dfb-dfo+0.5)/(dfb+dfo+0.5))
		f := float32(union / local)
		ps := make([]posting, len(o.postings[id]))
		for i, p := range o.postings[id] {
			p.impact *= f
			ps[i] = p
		}
		c.postings[id] = ps
	}
	c.pool.New = func() any {
		n := len(c.names)
		return &scratch{scores: make([]float32, n), cover: make([]float32, n), masks: make([]uint64, n)}
	}
	return c
}

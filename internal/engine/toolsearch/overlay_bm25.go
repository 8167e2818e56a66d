package toolsearch

import "github.com/toolshelf/toolshelf/search"

import "math"

// calibrator is implemented by an index whose scores depend on its corpus
// (BM25's IDF): it rescores over, an index the same ranker built over a
// session's few self-built tools, as if those tools had joined its own
// corpus, so that merged scores compare. Without it, a word found in one
// self-built tool of two weighs a fraction of a word found in one catalog
// tool of a thousand, and the session's own tool ranks below weak matches.
type calibrator interface {
	calibrate(over search.Index) search.Index
}

// calibrate returns a copy of over whose per-field IDFs are those of the
// union of both corpora (document frequencies and document counts added),
// with every posting and name total computed again from them. The
// receiver is left as it is (its tools see the overlay's few documents as
// absent, a difference of a few in thousands). Field lengths keep the
// overlay's own averages. A base document frequency is read back from the
// base IDF, log(1 + (N - d + 0.5)/(d + 0.5)), which the index keeps.
func (ix *bm25Index) calibrate(over search.Index) search.Index {
	o, ok := over.(*bm25Index)
	if !ok || len(o.tools) == 0 {
		return over
	}
	nb, no := float64(len(ix.names)), float64(len(o.names))
	// The overlay's own tables, shared read-only; idf, postings and
	// nameTot are computed again below.
	c := &bm25Index{vocab: o.vocab, k1: o.k1, specs: o.specs, tools: o.tools, names: o.names, group: o.group, groups: o.groups,
		docLen: o.docLen, avg: o.avg, dict: o.dict, disc: o.disc, gterms: o.gterms, ngroups: o.ngroups, serverStems: o.serverStems}
	n := len(o.names)
	c.pool.New = func() any { return newScratch(n, c.ngroups) }
	c.idf = make([][nFields]float32, len(o.idf))
	for term, id := range o.dict {
		bid, inBase := ix.dict[term]
		for f := range c.idf[id] {
			dfo := dfFromIDF(float64(o.idf[id][f]), no)
			dfb := 0.0
			if inBase {
				dfb = dfFromIDF(float64(ix.idf[bid][f]), nb)
			}
			if d := dfo + dfb; d > 0 && dfo > 0 {
				c.idf[id][f] = float32(math.Log(1 + (nb+no-d+0.5)/(d+0.5)))
			}
		}
	}
	// Term frequencies per field of each overlay tool, analysed as the
	// build did, then each posting's contributions from the union's IDFs.
	raw := make([][]rawPosting, len(o.postings))
	cache := stemCache{}
	for i, t := range o.tools {
		byTerm := map[int32]*[nFields]float32{}
		var order []int32
		analyseTool(t, cache.stem, func(term string, f int) {
			id, ok := o.dict[term]
			if !ok {
				return
			}
			tf := byTerm[id]
			if tf == nil {
				tf = new([nFields]float32)
				byTerm[id] = tf
				order = append(order, id)
			}
			tf[f]++
		})
		for _, id := range order {
			raw[id] = append(raw[id], rawPosting{int32(i), *byTerm[id]})
		}
	}
	c.postings = make([][]posting, len(o.postings))
	c.nameTot = make([]float32, len(o.nameTot))
	for id, rps := range raw {
		ps := make([]posting, len(rps))
		for k, rp := range rps {
			ps[k] = c.scorePosting(int32(id), rp, c.discount(int32(id), rp.doc))
		}
		c.postings[id] = ps
	}
	return c
}

// dfFromIDF inverts idf = log(1 + (n - d + 0.5)/(d + 0.5)) for d; an IDF
// of 0 means the term is not in that field (d = 0).
func dfFromIDF(idf, n float64) float64 {
	if idf <= 0 {
		return 0
	}
	return math.Round(math.Max(0, (n+1)/math.Exp(idf)-0.5))
}

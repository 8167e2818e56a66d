package search

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestDebugQuery(t *testing.T) {
	q := os.Getenv("Q")
	if q == "" {
		t.Skip()
	}
	s := devSearcher(t)
	ix := s.index.(*bm25Index)
	qs := strings.Split(q, "|")
	qt, _ := ix.parseQuery(qs)
	inv := map[int32]string{}
	for k, v := range ix.dict {
		inv[v] = k
	}
	for _, x := range qt {
		t.Logf("term %s w=%.2f df=%d", inv[x.id], x.w, len(ix.postings[x.id]))
	}
	hits, _ := s.Search(context.Background(), qs, 8, Scope{})
	for _, h := range hits {
		var parts []string
		d := int32(-1)
		for i, n := range ix.names {
			if n == h.Name {
				d = int32(i)
			}
		}
		for _, x := range qt {
			for _, p := range ix.postings[x.id] {
				if p.doc == d {
					parts = append(parts, inv[x.id]+"="+strings.TrimRight(strings.TrimRight(fmtF(float64(x.w*p.impact)), "0"), "."))
				}
			}
		}
		t.Logf("%6.2f %s  %v", h.Score, h.Name, parts)
	}
}

func fmtF(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

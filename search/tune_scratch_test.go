package search

import (
	"os"
	"strings"
	"testing"
)

func TestTuneScratch(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	for _, r := range runQuality(t) {
		for _, row := range []struct {
			n string
			r *Report
		}{{"ours", r.ours}, {"bm25", r.bm25}} {
			tu, ch := row.r.ByHalf[HalfTune], row.r.ByHalf[HalfCheck]
			t.Logf("%-10s %-5s tune %.3f/%.3f check %.3f/%.3f  schemas %.2f", r.set.name[:8], row.n, tu.RecallAt1, tu.RecallAt5, ch.RecallAt1, ch.RecallAt5, row.r.MeanSchemasLoaded)
		}
		if zh := r.ours.ByLang["zh"]; zh != nil {
			t.Logf("   zh %.3f/%.3f", zh.RecallAt1, zh.RecallAt5)
		}
		if os.Getenv("MISSES") != "" && r.set.name[:3] == os.Getenv("MISSES") {
			for _, m := range r.ours.Misses {
				if Half(EvalQuery{ID: m.ID, Query: m.Query}) == HalfTune {
					t.Logf("MISS %s %q want %v got %v", m.ID, m.Query, m.Expect, m.Got)
				}
			}
		}
	}
}

func TestTuneTop1(t *testing.T) {
	set := os.Getenv("TOP1")
	if set == "" {
		t.Skip()
	}
	for _, qs := range querySets() {
		if qs.name[:3] != set {
			continue
		}
		plan, _ := PlanCatalogs(qs.catalogs(t)...)
		s, _ := New(plan, nil)
		for _, q := range loadQueries(t, qs.queries) {
			if Half(q) != HalfTune {
				continue
			}
			hits, _ := s.Search(t.Context(), q.Query, 5, Scope{})
			if len(hits) > 0 && hits[0].Name == q.Expect[0] {
				continue
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Name)
			}
			t.Logf("%s %q want %v got %v", q.ID, q.Query, q.Expect, got)
		}
	}
}

func TestExplainScratch(t *testing.T) {
	q := os.Getenv("EXPLAIN")
	if q == "" {
		t.Skip()
	}
	s := devSearcher(t)
	for _, name := range strings.Split(os.Getenv("TOOLS"), ",") {
		e, err := s.Explain(t.Context(), strings.Split(q, "|"), name, Scope{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		e.WriteText(&b)
		t.Log("\n" + b.String())
	}
}

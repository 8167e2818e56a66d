package search

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestScratchMisses prints R@1 misses (scratch; not committed).
func TestScratchMisses(t *testing.T) {
	want := os.Getenv("SET")
	if want == "" {
		t.Skip()
	}
	ctx := context.Background()
	for _, qs := range querySets() {
		if !strings.Contains(strings.ToLower(qs.name), want) {
			continue
		}
		plan, _ := PlanCatalogs(qs.catalogs(t)...)
		s, _ := New(plan, nil)
		qq := loadQueries(t, qs.queries)
		for _, q := range qq {
			if os.Getenv("HALF") != "" && Half(q) != os.Getenv("HALF") {
				continue
			}
			hits, _ := s.Search(ctx, q.Query, 5, Scope{})
			if len(hits) > 0 && slices.Contains(q.Expect, hits[0].Name) {
				continue
			}
			rank := -1
			for i, h := range hits {
				if slices.Contains(q.Expect, h.Name) {
					rank = i
				}
			}
			var got []string
			for _, h := range hits {
				if len(got) < 3 {
					got = append(got, fmt.Sprintf("%s(%.2f)", h.Name, h.Score))
				}
			}
			fmt.Printf("%s [%s] r=%d %q\n   want %v\n   got %v\n", q.ID, Half(q), rank, q.Query, q.Expect, got)
		}
	}
}

// TestScratchFigures prints per-half figures of every set (scratch).
func TestScratchFigures(t *testing.T) {
	if os.Getenv("FIG") == "" {
		t.Skip()
	}
	ctx := context.Background()
	for _, qs := range querySets() {
		plan, _ := PlanCatalogs(qs.catalogs(t)...)
		s, _ := New(plan, nil)
		rep, err := Eval(ctx, s, loadQueries(t, qs.queries))
		if err != nil {
			t.Fatal(err)
		}
		tu, ch := rep.ByHalf["tune"], rep.ByHalf["check"]
		fmt.Printf("%-12.12s tune %.3f/%.3f check %.3f/%.3f all %.3f/%.3f\n", qs.name, tu.RecallAt1, tu.RecallAt5, ch.RecallAt1, ch.RecallAt5, rep.RecallAt1, rep.RecallAt5)
	}
}

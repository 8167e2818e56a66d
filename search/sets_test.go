package search

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// querySet is one catalog union and its queries.
type querySet struct {
	name     string
	catalogs func(testing.TB) []string
	queries  string
}

func querySets() []querySet {
	return []querySet{
		{"dev", catalogPaths, "../testdata/queries/dev.jsonl"},
		{"metatool", func(testing.TB) []string { return []string{"../testdata/benchmarks/metatool/catalog.json"} }, "../testdata/benchmarks/metatool/queries.jsonl"},
		{"bfcl-multiple", func(testing.TB) []string { return []string{"../testdata/benchmarks/bfcl-multiple/catalog.json"} }, "../testdata/benchmarks/bfcl-multiple/queries.jsonl"},
	}
}

func TestSetsDebug(t *testing.T) {
	for _, qs := range querySets() {
		plan, err := PlanCatalogs(qs.catalogs(t)...)
		require.NoError(t, err)
		s, err := New(plan, nil)
		require.NoError(t, err)
		rep, err := Eval(context.Background(), s, loadQueries(t, qs.queries))
		require.NoError(t, err)
		fmt.Printf("%-14s R@1 %.3f R@5 %.3f MRR %.3f schemas %.2f\n", qs.name, rep.RecallAt1, rep.RecallAt5, rep.MRR, rep.MeanSchemasLoaded)
	}
}

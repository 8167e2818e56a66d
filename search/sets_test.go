package search

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// querySet is one catalog union and its queries.
type querySet struct {
	name     string
	catalogs func(testing.TB) []string
	queries  string
}

func querySets() []querySet {
	return []querySet{
		{"dev (120 queries, 293 tools)", catalogPaths, "../testdata/queries/dev.jsonl"},
		{"MetaTool (1,443 queries, 199 tools)", func(testing.TB) []string { return []string{"../testdata/benchmarks/metatool/catalog.json"} }, "../testdata/benchmarks/metatool/queries.jsonl"},
		{"BFCL multiple (685 queries, 443 tools)", func(testing.TB) []string { return []string{"../testdata/benchmarks/bfcl-multiple/catalog.json"} }, "../testdata/benchmarks/bfcl-multiple/queries.jsonl"},
	}
}

// TestQuality runs every query set through tool_search's ranking and the two
// baselines, fails when the dev set falls below the bar, and keeps the
// figures in testdata/quality.md (the README's table; TOOLSHELF_UPDATE=1 rewrites it).
func TestQuality(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	b.WriteString("| query set | method | recall@1 | recall@5 | MRR | schemas loaded per query |\n|---|---|--:|--:|--:|--:|\n")
	for _, qs := range querySets() {
		plan, err := PlanCatalogs(qs.catalogs(t)...)
		require.NoError(t, err)
		s, err := New(plan, nil)
		require.NoError(t, err)
		queries := loadQueries(t, qs.queries)
		ours, err := Eval(ctx, s, queries)
		require.NoError(t, err)
		kw, err := EvalIndex(ctx, newKeywordIndex(plan.Deferred()), 10, queries)
		require.NoError(t, err)
		bm, err := EvalIndex(ctx, newPlainBM25(plan.Deferred()), 5, queries)
		require.NoError(t, err)
		for _, row := range []struct {
			name string
			r    *Report
		}{{"toolshelf BM25F + vocabulary, 5 results", ours}, {"keyword overlap (Pydantic AI), 10 results", kw}, {"plain BM25 (k1 1.2, b 0.75), 5 results", bm}} {
			fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.3f | %.2f |\n", qs.name, row.name, row.r.RecallAt1, row.r.RecallAt5, row.r.MRR, row.r.MeanSchemasLoaded)
		}
		if strings.HasPrefix(qs.name, "dev") {
			assert.GreaterOrEqual(t, ours.RecallAt5, 0.90, "dev recall@5")
			assert.GreaterOrEqual(t, ours.RecallAt1, 0.70, "dev recall@1")
			assert.LessOrEqual(t, ours.MeanSchemasLoaded, 3.0, "dev schemas loaded per query")
			assert.Greater(t, ours.RecallAt5, bm.RecallAt5, "must beat plain BM25")
			assert.Greater(t, ours.ByLang["zh"].RecallAt5, 0.5, "Chinese-only queries must be found through the glossary")
		}
	}
	golden := "testdata/quality.md"
	if requesttest.Updating() {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run TOOLSHELF_UPDATE=1 go test ./search -run TestQuality")
	assert.Equal(t, string(want), b.String(), "figures changed: rerun with TOOLSHELF_UPDATE=1 and copy the table into README.md")
	t.Log("\n" + b.String())
}

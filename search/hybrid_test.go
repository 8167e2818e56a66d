package search

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

func catalogPaths(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob("../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	require.Len(t, paths, 10)
	return paths
}

// fixedRanker returns the same ranking for every query, or fails.
type fixedRanker struct {
	names []string
	fail  bool
}

func (f fixedRanker) Index(context.Context, []*registry.Tool) (Index, error) { return f, nil }

func (f fixedRanker) Search(_ context.Context, _ []string, limit int) ([]Hit, error) {
	if f.fail {
		return nil, errors.New("endpoint down")
	}
	var out []Hit
	for i, n := range f.names[:min(limit, len(f.names))] {
		out = append(out, Hit{Name: n, Score: 1 - float64(i)/10})
	}
	return out, nil
}

func TestFuseReciprocalRank(t *testing.T) {
	a := []Hit{{Name: "x", Fit: Fit{Judged: true, Evidence: 2}}, {Name: "y"}, {Name: "z"}}
	b := []Hit{{Name: "z"}, {Name: "w"}, {Name: "x"}}
	got := fuse(a, b, 60, 4)
	// x: 1/61 + 1/63; z: 1/63 + 1/61; tie broken by name; y: 1/62; w: 1/62.
	require.Len(t, got, 4)
	assert.Equal(t, []string{"x", "z", "w", "y"}, names(got))
	assert.InDelta(t, 1.0/61+1.0/63, got[0].Score, 1e-12)
	assert.Equal(t, 2.0, got[0].Fit.Evidence, "the lexical fit is kept")
	assert.False(t, got[2].Fit.Judged, "a tool only the second ranking found is not judged")
}

func TestHybridFallsBackToLexical(t *testing.T) {
	plan, err := toolsearch.PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	ctx := context.Background()
	lexIdx, err := (&toolsearch.BM25F{}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	want, err := lexIdx.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)

	down, err := (&Hybrid{Second: fixedRanker{fail: true}}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	got, err := down.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)
	assert.Equal(t, want, got, "a failing second ranking leaves the lexical one")

	up, err := (&Hybrid{Second: fixedRanker{names: []string{"mcp__time__get_current_time", want[0].Name}}}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	got, err = up.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)
	assert.Equal(t, want[0].Name, got[0].Name, "first in both")
	assert.Contains(t, names(got), "mcp__time__get_current_time", "the second ranking's own find is fused in")

	s, err := toolsearch.New(plan, (*toolsearch.Options)(&Options{Ranker: &Hybrid{Second: fixedRanker{fail: true}}}))
	require.NoError(t, err)
	r := s.Call(ctx, []byte(`{"queries": ["take a screenshot"]}`), toolsearch.Scope{Loaded: NewLoadedSet()})
	assert.Contains(t, r.Text, "## "+want[0].Name)
}

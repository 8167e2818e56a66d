package search_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

func catalogPaths(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob("../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	require.Len(t, paths, 10)
	return paths
}

func hitNames(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

// listRanker returns the same ranking for every query, or fails.
type listRanker struct {
	names []string
	fail  bool
}

func (f listRanker) Index(context.Context, []*registry.Tool) (search.Index, error) { return f, nil }

func (f listRanker) Search(_ context.Context, _ []string, limit int) ([]search.Hit, error) {
	if f.fail {
		return nil, errors.New("endpoint down")
	}
	var out []search.Hit
	for i, n := range f.names[:min(limit, len(f.names))] {
		out = append(out, search.Hit{Name: n, Score: 1 - float64(i)/10})
	}
	return out, nil
}

// TestHybridNeedsLexicalOutsideSession: search cannot build the built-in
// ranker itself; outside a session a nil Lexical is an options error, and a
// session fills it in.
func TestHybridNeedsLexicalOutsideSession(t *testing.T) {
	_, err := (&search.Hybrid{Second: listRanker{}}).Index(context.Background(), nil)
	assert.ErrorIs(t, err, search.ErrOptions)
}

func TestHybridFallsBackToLexical(t *testing.T) {
	plan, err := toolsearch.PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	ctx := context.Background()
	lexIdx, err := (&toolsearch.BM25F{}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	want, err := lexIdx.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)

	down, err := (&search.Hybrid{Lexical: &toolsearch.BM25F{}, Second: listRanker{fail: true}}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	got, err := down.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)
	assert.Equal(t, want, got, "a failing second ranking leaves the lexical one")

	up, err := (&search.Hybrid{Lexical: &toolsearch.BM25F{}, Second: listRanker{names: []string{"mcp__time__get_current_time", want[0].Name}}}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	got, err = up.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)
	assert.Equal(t, want[0].Name, got[0].Name, "first in both")
	assert.Contains(t, hitNames(got), "mcp__time__get_current_time", "the second ranking's own find is fused in")

	s, err := toolsearch.New(plan, (&search.Options{Ranker: &search.Hybrid{Second: listRanker{fail: true}}}))
	require.NoError(t, err)
	r := s.Call(ctx, []byte(`{"queries": ["take a screenshot"]}`), toolsearch.Scope{Loaded: toolsearch.NewLoadedSet()})
	assert.Contains(t, r.Text, "## "+want[0].Name)
}

package toolsearch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// catalogPaths returns the 10 MCP catalogs of testdata/catalogs.
func catalogPaths(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob("../../../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	require.Len(t, paths, 10)
	return paths
}

func loadQueries(t testing.TB, path string) []EvalQuery {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	qs, err := ReadQueries(f)
	require.NoError(t, err)
	return qs
}

func devSearcher(t testing.TB) *Searcher {
	t.Helper()
	plan, err := PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	require.Len(t, plan.Deferred(), 293)
	s, err := New(plan, nil)
	require.NoError(t, err)
	return s
}

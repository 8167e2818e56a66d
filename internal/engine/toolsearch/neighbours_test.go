package toolsearch

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNeighboursForUnknownWords: a query word the catalog lacks reaches a
// tool through its GloVe neighbours when WordNet does not link them
// ("newest" → "latest"), below the literal word's weight, and the
// explanation names the route; a word the catalog has gets no neighbour.
func TestNeighboursForUnknownWords(t *testing.T) {
	s := searcherOf(t, writeCatalog(t, "",
		catalogTool{Name: "get_release", Description: "Get the latest release of a project."},
		catalogTool{Name: "list_tags", Description: "List the tags of a project."},
	))
	ctx := context.Background()
	hits, err := s.Search(ctx, []string{"newest"}, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits, "newest reaches latest only through GloVe")
	assert.Equal(t, "get_release", hits[0].Name)

	e, err := s.Explain(ctx, []string{"newest"}, "get_release", Scope{})
	require.NoError(t, err)
	require.Len(t, e.Words, 1)
	w := e.Words[0]
	require.GreaterOrEqual(t, w.Best, 0)
	best := w.Alts[w.Best]
	assert.Equal(t, viaNeighbour, best.Via)
	assert.Less(t, best.Weight, weightNeighbour, "a neighbour weighs its cosine × the route's weight")
	require.NotEmpty(t, best.Terms)
	assert.Equal(t, "latest", best.Terms[0].Term)

	// "latest" is a word of the catalog: its own match is what counts,
	// and it gets no distributional alternatives.
	e, err = s.Explain(ctx, []string{"latest"}, "get_release", Scope{})
	require.NoError(t, err)
	for _, a := range e.Words[0].Alts {
		assert.NotEqual(t, viaNeighbour, a.Via, "a known word is not expanded by GloVe")
	}
}

// neighbourQuery has words the real catalogs lack ("newest", "shipped")
// whose GloVe neighbours they have (latest, released).
var neighbourQuery = []string{"newest version shipped"}

// TestNeighbourAllocationsIndependentOfCatalog: expanding a word through
// its neighbours allocates for the query, never per tool.
func TestNeighbourAllocationsIndependentOfCatalog(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds a 3,000-tool index; the race detector drops pooled scratch at random")
	}
	ctx := context.Background()
	allocs := func(n int) float64 {
		s, err := New(syntheticPlan(t, n), nil)
		require.NoError(t, err)
		e, err := s.Explain(ctx, neighbourQuery, "mcp__github-0__get_latest_release", Scope{})
		require.NoError(t, err)
		used := false
		for _, w := range e.Words {
			for _, a := range w.Alts {
				used = used || a.Via == viaNeighbour
			}
		}
		require.True(t, used, "the query must exercise the neighbours")
		return queryAllocs(t, s, neighbourQuery)
	}
	small, large := allocs(300), allocs(3000)
	assert.Positive(t, small)
	assert.Equal(t, small, large, "allocations per query at 300 and 3,000 tools")
}

// BenchmarkQueryNeighbours is [BenchmarkQuery] for a query expanded
// through GloVe neighbours; BenchmarkQueryNeighboursPlainBM25 its
// baseline in the same run.
func BenchmarkQueryNeighbours(b *testing.B) {
	s, err := New(syntheticPlan(b, 10000), nil)
	require.NoError(b, err)
	ctx := context.Background()
	_, err = s.Search(ctx, neighbourQuery, 5, Scope{}) // parse the tables once
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Search(ctx, neighbourQuery, 5, Scope{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQueryNeighboursPlainBM25(b *testing.B) {
	ix := newPlainBM25(syntheticPlan(b, 10000).Deferred())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = ix.Search(ctx, neighbourQuery, 5)
	}
}

package request

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// countingRanker is BM25F counting its index builds.
type countingRanker struct {
	search.BM25F
	mu     sync.Mutex
	builds int
}

func (r *countingRanker) Index(ctx context.Context, tools []*registry.Tool) (search.Index, error) {
	r.mu.Lock()
	r.builds++
	r.mu.Unlock()
	return r.BM25F.Index(ctx, tools)
}

// Twenty sessions, each created with its own but equal &search.Options{},
// share one frozen prefix and one searcher: Config.Search is keyed by
// value. Keyed by pointer, they froze 20 prefixes and built 20 indexes.
func TestEqualSearchOptionsShareOnePrefix(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile, "catalogs/github.tools.json")
	ranker := &countingRanker{}
	for _, tc := range []struct {
		name string
		opts func() *search.Options
	}{
		{"zero", func() *search.Options { return &search.Options{} }},
		{"ranker", func() *search.Options { return &search.Options{Ranker: ranker, Languages: []string{"en"}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := NewCache()
			var first *Session
			for range 20 {
				cfg := testConfig(reg.Snapshot(), Anthropic, githubPolicy(), cache)
				cfg.Search = tc.opts()
				s, err := NewSession(cfg)
				require.NoError(t, err)
				if first == nil {
					first = s
					continue
				}
				assert.Same(t, first.Frozen(), s.Frozen())
				assert.Same(t, first.Frozen().Searcher(), s.Frozen().Searcher())
			}
			assert.Equal(t, 1, cache.Len())
		})
	}
	assert.Equal(t, 1, ranker.builds, "one index for 20 sessions")

	// Options that differ still get their own prefix.
	cache := NewCache()
	for _, o := range []*search.Options{nil, {}, {IndexBudget: 500}, {Ranker: ranker}, {Ranker: &countingRanker{}}, {Vocabulary: []string{"pr | pull request"}}} {
		cfg := testConfig(reg.Snapshot(), Anthropic, githubPolicy(), cache)
		cfg.Search = o
		_, err := NewSession(cfg)
		require.NoError(t, err)
	}
	assert.Equal(t, 5, cache.Len(), "nil and &Options{} mean the same defaults; the rest differ")
}

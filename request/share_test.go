package request

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// countingRanker is BM25F counting its index builds.
type countingRanker struct {
	toolsearch.BM25F
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
				assert.Same(t, first.current(), s.current())
				assert.Same(t, first.current().searcher, s.current().searcher)
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

// Tools whose description was cut to OpenAI's cap are searchable through
// an overlay every session of the prefix shares: ten sessions build it
// once; a session with its own self-built tool builds its own.
func TestShortenedToolsShareOneOverlay(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, harnessFile, "catalogs/github.tools.json")
	cache := NewCache()
	var sessions []*Session
	for range 10 {
		s, err := NewSession(testConfig(reg.Snapshot(), OpenAIChat, githubPolicy(), cache))
		require.NoError(t, err)
		sessions = append(sessions, s)
	}
	f := sessions[0].current()
	require.NotEmpty(t, f.shortened, "the harness catalog has descriptions over the cap")
	long := f.shortened[0].Name
	for _, s := range sessions {
		r := s.Call(t.Context(), registry.ToolSearchName, []byte(`{"tool_names":["`+long+`"]}`))
		require.False(t, r.IsError, r.Text)
		assert.Contains(t, r.Text, "## "+long)
	}
	assert.Equal(t, 1, f.overlay.Builds())
	own := sessions[0]
	require.NoError(t, own.RegisterSelfBuilt(registry.Tool{Name: "mine", Description: "Mine."}))
	r := own.Call(t.Context(), registry.ToolSearchName, []byte(`{"tool_names":["mine","`+long+`"]}`))
	require.False(t, r.IsError, r.Text)
	assert.Contains(t, r.Text, "## mine")
	assert.Contains(t, r.Text, long+" is already loaded")
	assert.Equal(t, 1, f.overlay.Builds())
	assert.Equal(t, 1, own.tools.overlay.Builds())
	assert.Zero(t, sessions[1].tools.overlay.Builds())
}

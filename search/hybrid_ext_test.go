package search_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
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

// fixedRanker returns its list whatever limit it is asked for, or panics.
type fixedRanker struct {
	hits  []search.Hit
	panic bool
}

func (f fixedRanker) Index(context.Context, []*registry.Tool) (search.Index, error) { return f, nil }

func (f fixedRanker) Search(context.Context, []string, int) ([]search.Hit, error) {
	if f.panic {
		panic("ranker bug")
	}
	return f.hits, nil
}

// TestHybridCountsANameOncePerRanking: issue 43 — a second ranking that
// repeated one name 50 times lifted it far above the tool both rankings
// put first (each occurrence was added); and Depth did not bound what was
// read of a ranking that returned more than asked. A name counts once per
// ranking, at its best rank, and only the first Depth hits count.
func TestHybridCountsANameOncePerRanking(t *testing.T) {
	plan, err := toolsearch.PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	ctx := context.Background()
	lexIdx, err := (&toolsearch.BM25F{}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	want, err := lexIdx.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)
	const other = "mcp__time__get_current_time"
	hits := []search.Hit{{Name: want[0].Name, Score: 1}}
	for range 50 {
		hits = append(hits, search.Hit{Name: other, Score: 0.9})
	}
	ix, err := (&search.Hybrid{Lexical: &toolsearch.BM25F{}, Second: fixedRanker{hits: hits}}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	got, err := ix.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)
	assert.Equal(t, want[0].Name, got[0].Name, "first in both rankings stays first: %v", hitNames(got))
	assert.Equal(t, other, got[1].Name, "second ranking's rank 2, counted once")

	// Depth 3: a second ranking that returns 100,000 hits whatever it is
	// asked for is read to its third; the lexical first, 61st there,
	// scores its lexical part alone.
	deep := make([]search.Hit, 0, 100_000)
	for i := range 100_000 {
		deep = append(deep, search.Hit{Name: "mcp__nowhere__tool_" + strconv.Itoa(i)})
	}
	deep[60].Name = want[0].Name
	ix, err = (&search.Hybrid{Lexical: &toolsearch.BM25F{}, Second: fixedRanker{hits: deep}, Depth: 3, LexicalWeight: 100}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	got, err = ix.Search(ctx, []string{"take a screenshot"}, 3)
	require.NoError(t, err)
	require.Equal(t, want[0].Name, got[0].Name)
	for _, h := range got {
		if h.Name == want[0].Name {
			assert.InDelta(t, 100.0/11, h.Score, 1e-12, "rank 1 lexically, past Depth in the second ranking")
		}
		if n, ok := strings.CutPrefix(h.Name, "mcp__nowhere__tool_"); ok {
			i, err := strconv.Atoi(n)
			require.NoError(t, err)
			assert.Less(t, i, 3, "past Depth")
		}
	}
}

// TestHybridPanickingSecondDegrades: issue 43 — a second ranking that
// panicked gave the model an error result, not the lexical ranking the
// docs promise when the second ranking fails. Now the search answers
// lexically, and the dispatcher's "searched" event says the second
// ranking failed.
func TestHybridPanickingSecondDegrades(t *testing.T) {
	plan, err := toolsearch.PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	ctx := context.Background()
	lexIdx, err := (&toolsearch.BM25F{}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	want, err := lexIdx.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)
	ix, err := (&search.Hybrid{Lexical: &toolsearch.BM25F{}, Second: fixedRanker{panic: true}}).Index(ctx, plan.Deferred())
	require.NoError(t, err)
	got, err := ix.Search(ctx, []string{"take a screenshot"}, 5)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	reg := registry.New(nil)
	for _, p := range catalogPaths(t)[:3] {
		c, err := registry.LoadCatalog(p)
		require.NoError(t, err)
		require.NoError(t, reg.Import(c))
	}
	var evs []execute.Event
	d, err := execute.New(&execute.Options{Observer: execute.OnEvent(func(ev execute.Event) { evs = append(evs, ev) })})
	require.NoError(t, err)
	for _, second := range []search.Ranker{fixedRanker{panic: true}, listRanker{fail: true}} {
		evs = nil
		s, err := request.NewSession(request.Config{
			Snapshot: reg.Snapshot(), Provider: request.Anthropic, Model: "claude-sonnet-4-5",
			Policy: &deferral.Policy{Default: deferral.DefaultDefer}, Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`1024`)},
			Dispatcher: d, Search: &search.Options{Ranker: &search.Hybrid{Second: second}},
		})
		require.NoError(t, err)
		res := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"queries":["list the issues"]}`))
		require.False(t, res.IsError, res.Text)
		var searched []execute.Event
		for _, e := range evs {
			if e.Kind == execute.EventSearched {
				searched = append(searched, e)
			}
		}
		require.Len(t, searched, 1)
		assert.Contains(t, searched[0].Detail, "hybrid: the second ranking failed, the lexical ranking answered alone")
	}
}

package search

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
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
	got := fuse(a, b, fusion{lexW: 1, secW: 1, lexK: 60, secK: 60}, 4)
	// x: 1/61 + 1/63; z: 1/63 + 1/61; tie broken by name; y: 1/62; w: 1/62.
	require.Len(t, got, 4)
	assert.Equal(t, []string{"x", "z", "w", "y"}, names(got))
	assert.InDelta(t, 1.0/61+1.0/63, got[0].Score, 1e-12)
	assert.Equal(t, 2.0, got[0].Fit.Evidence, "the lexical fit is kept")
	assert.False(t, got[2].Fit.Judged, "a tool only the second ranking found is not judged")
}

// mapRanker ranks by a fixed list per query.
type mapRanker map[string][]string

func (m mapRanker) Index(context.Context, []*registry.Tool) (Index, error) { return m, nil }

func (m mapRanker) Search(_ context.Context, q []string, limit int) ([]Hit, error) {
	var out []Hit
	for i, n := range m[q[0]] {
		if i == limit {
			break
		}
		out = append(out, Hit{Name: n, Score: 1 / float64(i+1)})
	}
	return out, nil
}

// denseAndLexical builds 100 queries over which a synthetic dense ranking
// is better than the lexical one: the right tool is first in the dense
// ranking for 90 queries and second for 10; in the lexical ranking it is
// first for a third of them and third otherwise, behind the dense
// ranking's runner-up. It returns the rankings and each query's tool.
func denseAndLexical() (dense, lex mapRanker, want map[string]string) {
	dense, lex, want = mapRanker{}, mapRanker{}, map[string]string{}
	for i := range 100 {
		q := fmt.Sprintf("q%d", i)
		right, near, other := fmt.Sprintf("right%d", i), fmt.Sprintf("near%d", i), fmt.Sprintf("other%d", i)
		want[q] = right
		if i%10 == 0 {
			dense[q] = []string{near, right, other}
		} else {
			dense[q] = []string{right, near, other}
		}
		if i%3 == 0 {
			lex[q] = []string{right, near, other}
		} else {
			lex[q] = []string{near, other, right}
		}
	}
	return dense, lex, want
}

func recallAt1(t *testing.T, r Ranker, want map[string]string) float64 {
	t.Helper()
	ix, err := r.Index(context.Background(), nil)
	require.NoError(t, err)
	n := 0
	for q, w := range want {
		hits, err := ix.Search(context.Background(), []string{q}, 5)
		require.NoError(t, err)
		if len(hits) > 0 && hits[0].Name == w {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// TestHybridDefaultFavoursDense: a dense ranking better than the lexical
// one is not dragged below itself by the default fusion, while the
// classic equal-weight fusion (k 60) drags it down, so the test measures
// the weights.
func TestHybridDefaultFavoursDense(t *testing.T) {
	dense, lex, want := denseAndLexical()
	alone := recallAt1(t, dense, want)
	require.Equal(t, 0.9, alone)
	require.Less(t, recallAt1(t, lex, want), alone, "the synthetic dense ranking is the better one")

	fused := recallAt1(t, &Hybrid{Lexical: lex, Second: dense}, want)
	assert.GreaterOrEqual(t, fused, alone, "default fusion against the dense ranking alone")

	classic := recallAt1(t, &Hybrid{Lexical: lex, Second: dense, LexicalWeight: 1, SecondWeight: 1, LexicalK: 60, SecondK: 60}, want)
	assert.Less(t, classic, alone, "equal weights with k 60 fall below the dense ranking")

	_, err := (&Hybrid{Lexical: lex, Second: dense, SecondWeight: -1}).Index(context.Background(), nil)
	assert.ErrorIs(t, err, ErrOptions)
}

// TestHybridWeightAndK: each ranking's weight and k enter its reciprocal
// rank as weight/(k + rank).
func TestHybridWeightAndK(t *testing.T) {
	lex := mapRanker{"q": {"a", "b"}}
	sec := mapRanker{"q": {"b", "c"}}
	ix, err := (&Hybrid{Lexical: lex, Second: sec, LexicalWeight: 2, SecondWeight: 3, LexicalK: 5, SecondK: 7}).Index(context.Background(), nil)
	require.NoError(t, err)
	hits, err := ix.Search(context.Background(), []string{"q"}, 3)
	require.NoError(t, err)
	got := map[string]float64{}
	for _, h := range hits {
		got[h.Name] = h.Score
	}
	assert.InDelta(t, 2.0/6, got["a"], 1e-12)
	assert.InDelta(t, 2.0/7+3.0/8, got["b"], 1e-12)
	assert.InDelta(t, 3.0/9, got["c"], 1e-12)
	assert.Equal(t, "b", hits[0].Name)
}

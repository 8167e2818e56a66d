package search

import (
	"context"
	"errors"
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
	got := fuse(a, b, 60, 4)
	// x: 1/61 + 1/63; z: 1/63 + 1/61; tie broken by name; y: 1/62; w: 1/62.
	require.Len(t, got, 4)
	assert.Equal(t, []string{"x", "z", "w", "y"}, names(got))
	assert.InDelta(t, 1.0/61+1.0/63, got[0].Score, 1e-12)
	assert.Equal(t, 2.0, got[0].Fit.Evidence, "the lexical fit is kept")
	assert.False(t, got[2].Fit.Judged, "a tool only the second ranking found is not judged")
}

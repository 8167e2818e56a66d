package toolsearch

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// The overlay ranks like the full rebuild it replaces: for queries aimed
// at the self-built tools and at catalog tools, the merged top hit is the
// one an index over the catalog and the session's tools together gives,
// and the session's tools sit at the same rank in the top three.
func TestOverlayRanksLikeARebuild(t *testing.T) {
	plan := syntheticPlan(t, 1000)
	var own []*registry.Tool
	for _, st := range []registry.Tool{
		{Name: "csv_to_chart", Description: "Draw a bar chart from a CSV file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"CSV file path."}}}`)},
		{Name: "summarise_ledger", Description: "Summarise a ledger of invoices as a report.", RawSchema: json.RawMessage(`{"type":"object","properties":{"ledger":{"type":"string"}}}`)},
		{Name: "open_ticket", Description: "Open a support ticket in the helpdesk.", RawSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)},
	} {
		tl, err := registry.New(nil).CheckSelfBuilt(st)
		require.NoError(t, err)
		own = append(own, &tl)
	}
	s, err := New(plan, nil)
	require.NoError(t, err)
	full, err := (&BM25F{}).Index(context.Background(), append(plan.Deferred(), own...))
	require.NoError(t, err)
	sc := Scope{Overlay: &Overlay{}, Announced: own}
	ctx := context.Background()
	rank := func(hits []search.Hit, name string) int {
		for i, h := range hits {
			if h.Name == name {
				return i
			}
		}
		return -1
	}
	for _, q := range []string{"bar chart from csv", "ledger report", "invoice summary", "open a support ticket",
		"open a pull request", "take a screenshot", "list pods", "chart", "ticket"} {
		want, err := full.Search(ctx, []string{q}, 5)
		require.NoError(t, err)
		got, err := s.Search(ctx, []string{q}, 5, sc)
		require.NoError(t, err)
		require.NotEmpty(t, want, q)
		require.NotEmpty(t, got, q)
		assert.Equal(t, want[0].Name, got[0].Name, "top hit for %q", q)
		for _, o := range own {
			// Field lengths keep the overlay's own averages, so a weak
			// match near the cut may move by a place; a strong one may not.
			if r := rank(want, o.Name); r >= 0 && r < 3 {
				assert.Equal(t, r, rank(got, o.Name), "rank of %s for %q", o.Name, q)
			}
		}
	}
}

// A deferred tool's full text is formatted once per searcher and then
// shared; it reads exactly as formatting it afresh, and a session's own
// tool is never served from that cache.
func TestFullTextFormattedOnce(t *testing.T) {
	plan := syntheticPlan(t, 300)
	s, err := New(plan, nil)
	require.NoError(t, err)
	for _, tl := range plan.Deferred() {
		var b strings.Builder
		formatFull(&b, tl)
		first := s.fullText(tl)
		assert.Equal(t, b.String(), first)
		assert.Same(t, unsafe.StringData(first), unsafe.StringData(s.fullText(tl)), "cached")
	}
	// A self-built tool is not the catalog's tool, even under the same name.
	cat := plan.Deferred()[0]
	own := *cat
	own.Description = "A session's own tool."
	assert.Contains(t, s.fullText(&own), "A session's own tool.")
	assert.NotContains(t, s.fullText(cat), "A session's own tool.")
}

// A base document frequency read back from the float32 IDF the index
// keeps is exact, across the sizes a catalog has.
func TestDFFromIDF(t *testing.T) {
	for _, n := range []int{1, 2, 10, 293, 1000, 10000, 50000} {
		for _, d := range []int{1, 2, 3, n / 3, n / 2, n - 1, n} {
			if d < 1 || d > n {
				continue
			}
			idf := float32(math.Log(1 + (float64(n)-float64(d)+0.5)/(float64(d)+0.5)))
			assert.Equal(t, float64(d), dfFromIDF(float64(idf), float64(n)), "n %d, d %d", n, d)
		}
	}
	assert.Zero(t, dfFromIDF(0, 1000), "no IDF: not in the field")
}

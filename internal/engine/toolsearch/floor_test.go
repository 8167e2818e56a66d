package toolsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
)

// floorQuery is one query's search as the "nothing fits" floor sees it:
// whether the best hit abstains, and the most server-counted evidence of
// any candidate ([search.Fit.Group]).
type floorQuery struct {
	set      string
	positive bool
	abstains bool
	group    float64
	half     string
}

// floorSets runs every set the floor is calibrated on: the dev and
// no-match sets over TestCatalogSizes' unions of 2–4 dev catalogs (by
// size), the everyday set, the dev and no-match sets over all 293 tools,
// and the three public sets with the no-match set's chit-chat.
func floorSets(t *testing.T) ([]string, []floorQuery) {
	ctx := context.Background()
	var out []floorQuery
	add := func(set string, s *Searcher, qs []EvalQuery) {
		for _, q := range qs {
			if !holdsAll(s, q.Expect) {
				continue
			}
			hits, err := s.Search(ctx, q.Query, 5, Scope{})
			require.NoError(t, err)
			g := 0.0
			for _, h := range hits {
				g = max(g, h.Fit.Group)
			}
			// tool_search also reads deeper for a server the request
			// names (withNamedServers).
			if ix, ok := s.index.(*bm25Index); ok {
				for _, v := range ix.serverNameEvidence(q.Query, false) {
					g = max(g, float64(v))
				}
			}
			out = append(out, floorQuery{set, len(q.Expect) > 0, len(hits) == 0 || Abstains(hits), g, Half(q)})
		}
	}
	searcher := func(paths ...string) *Searcher {
		plan, err := PlanCatalogs(paths...)
		require.NoError(t, err)
		s, err := New(plan, nil)
		require.NoError(t, err)
		return s
	}
	dev := loadQueries(t, "../../../testdata/queries/dev.jsonl")
	none := loadQueries(t, noMatchQueries)
	var chat []EvalQuery
	for _, q := range none {
		if q.Kind == "chit-chat" {
			chat = append(chat, q)
		}
	}
	paths := catalogPaths(t)
	names := []string{"unions 1–30", "unions 31–100", "unions 101–300", "everyday (23)", "dev (293)", "MetaTool (199)", "BFCL (443)", "Seal-Tools (4,076)"}
	for _, u := range drawUnions(len(paths), sizeUnions, sizeSeed) {
		var files []string
		for _, i := range u {
			files = append(files, paths[i])
		}
		s := searcher(files...)
		set := names[2]
		if n := len(s.tools); n <= 30 {
			set = names[0]
		} else if n <= 100 {
			set = names[1]
		}
		add(set, s, append(slices.Clone(dev), none...))
	}
	add(names[3], searcher(everydayCatalogs...), loadQueries(t, everydayQueries))
	add(names[4], devSearcher(t), append(slices.Clone(dev), none...))
	for i, qs := range querySets()[1:] {
		add(names[5+i], searcher(qs.catalogs(t)...), append(loadQueries(t, qs.queries), chat...))
	}
	return names, out
}

// TestNothingFitsFloor re-derives the floor of "nothing fits" at every
// catalog size (long runs): on a grid of floors over Fit.Group, the
// highest at which every set's tune half — unions of 2–4 servers by size,
// the dev set over 293 tools, MetaTool, BFCL, Seal-Tools — says "nothing
// fits" on at most 2% of the requests a tool serves, and still does one
// step of the grid higher (a margin against requests the sets lack); a set no floor of the
// grid brings under the bar (the everyday set: its misses are vocabulary,
// not evidence) is reported and not counted. The grid's tune figures go to
// docs/search-quality.md.
func TestNothingFitsFloor(t *testing.T) {
	if !longtest.On() || raceEnabled {
		t.Skip("long, without -race: set TOOLSHELF_LONG=1 (every set over the unions; .ci/run runs it)")
	}
	names, qs := floorSets(t)
	grid := []float64{0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 1.1}
	falseNF := func(set string, floor float64) (fnf, tnf float64) {
		var p, pn, m, mn int
		for _, q := range qs {
			if q.set != set || q.half != HalfTune {
				continue
			}
			nf := q.abstains && q.group < floor
			if q.positive {
				p++
				if nf {
					pn++
				}
				continue
			}
			m++
			if nf {
				mn++
			}
		}
		return float64(pn) / float64(max(p, 1)), float64(mn) / float64(max(m, 1))
	}
	var b strings.Builder
	b.WriteString("| floor |")
	for _, n := range names {
		fmt.Fprintf(&b, " %s |", n)
	}
	b.WriteString("\n|--:|" + strings.Repeat("--:|", len(names)) + "\n")
	reachable := map[string]bool{}
	for _, n := range names {
		for _, f := range grid {
			if fnf, _ := falseNF(n, f); fnf <= 0.02 {
				reachable[n] = true
			}
		}
	}
	passes := make([]bool, len(grid))
	for i, f := range grid {
		fmt.Fprintf(&b, "| %.2f |", f)
		ok := true
		for _, n := range names {
			fnf, tnf := falseNF(n, f)
			fmt.Fprintf(&b, " %.3f / %.2f |", fnf, tnf)
			ok = ok && (fnf <= 0.02 || !reachable[n])
		}
		b.WriteString("\n")
		passes[i] = ok
	}
	// The floor keeps one step of the grid between it and the first floor
	// that fails a tune half: at the edge, one request the sets lack
	// tips it over (issue 47's check halves did, at 0.85).
	best := 0.0
	for i := range grid[:len(grid)-1] {
		if passes[i] && passes[i+1] {
			best = grid[i]
		}
	}
	t.Logf("floor %.2f\n%s", best, b.String())
	assert.Equal(t, nothingFitsEvidence, best, "the floor is the tune halves' pick")
	checkBlock(t, qualityDoc, "TestNothingFitsFloor", b.String())
}

package toolsearch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everydayQueries is the everyday set: ordinary phrasings over the
// filesystem and memory servers of testdata/wild (requests, requests no
// tool of theirs addresses, and tasks of several steps in one sentence),
// written for issue 47 before any change was measured on it.
const everydayQueries = "../../testdata/queries/everyday.jsonl"

// everydayCatalogs are the two real npm servers the everyday set is over
// (23 tools).
var everydayCatalogs = []string{
	"../../testdata/wild/modelcontextprotocol__server-filesystem.json",
	"../../testdata/wild/modelcontextprotocol__server-memory.json",
}

// sizeUnions and sizeSeed fix the draw of dev catalog unions.
const (
	sizeUnions = 40
	sizeSeed   = 47
)

// sizeRow is one line of the per-size table.
type sizeRow struct {
	set, size string
	f         map[string]*Figures
	a         map[string]*Abstention
}

// sizeRows measures the dev set (with the no-match set) over random unions
// of 2–4 of the dev catalogs, and the everyday set over its two servers.
func sizeRows(t *testing.T) []sizeRow {
	ctx := context.Background()
	qs := append(loadQueries(t, "../../testdata/queries/dev.jsonl"), loadQueries(t, noMatchQueries)...)
	ranges, err := EvalSizes(ctx, catalogPaths(t), qs, sizeUnions, sizeSeed)
	require.NoError(t, err)
	var rows []sizeRow
	for _, r := range ranges {
		size := fmt.Sprintf("%s (%d unions, %d–%d)", r.Label(), r.Unions, r.Smallest, r.Largest)
		rows = append(rows, sizeRow{"dev + no-match, unions of 2–4 servers", size, r.ByHalf, abstentionHalves(r.Abstention)})
	}
	plan, err := PlanCatalogs(everydayCatalogs...)
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)
	rep, err := Eval(ctx, s, loadQueries(t, everydayQueries))
	require.NoError(t, err)
	size := fmt.Sprintf("%d tools (filesystem + memory)", len(plan.Deferred()))
	rows = append(rows, sizeRow{"everyday", size, rep.ByHalf, abstentionHalves(rep.Abstention)})
	for _, k := range []string{"request", "task"} {
		f := map[string]*Figures{}
		kq := []EvalQuery{}
		for _, q := range loadQueries(t, everydayQueries) {
			if q.Kind == k {
				kq = append(kq, q)
			}
		}
		kr, err := Eval(ctx, s, kq)
		require.NoError(t, err)
		f = kr.ByHalf
		rows = append(rows, sizeRow{"everyday, kind=" + k, size, f, nil})
	}
	return rows
}

func abstentionHalves(a *Abstention) map[string]*Abstention {
	if a == nil {
		return nil
	}
	return a.ByHalf
}

// TestCatalogSizes reports tool_search's answers at the catalog sizes
// harnesses defer (issue 47) and checks the bars: at every size and on
// both halves, "nothing fits" on at most 2% of the requests a tool serves,
// and Config.Preload right on at least 90% of its fires (a fire on a
// no-match request is a wrong one). The figures are kept in
// docs/search-quality.md (TOOLSHELF_UPDATE=1 rewrites them).
func TestCatalogSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the dev set over 40 catalog unions")
	}
	var b strings.Builder
	b.WriteString("| query set | catalogs | half | queries | R@1 | R@5 | nothing fits (want low) | not sure | no-match queries | no-match: nothing fits | no-match: not sure | preload fires | preload precision |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	rate := func(n, of int) string {
		if of == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f (%d/%d)", float64(n)/float64(of), n, of)
	}
	for _, r := range sizeRows(t) {
		for _, h := range []string{HalfTune, HalfCheck} {
			f := r.f[h]
			if f == nil {
				f = &Figures{}
			}
			a := r.a[h]
			if a == nil {
				a = &Abstention{}
			}
			fires := f.Preloaded + a.Preloaded
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %.3f | %.3f | %s | %s | %d | %s | %s | %d | %s |\n", r.set, r.size, h, f.Queries,
				f.RecallAt1, f.RecallAt5, rate(f.Abstained, f.Queries), rate(f.NotSure, f.Queries), a.Queries,
				rate(a.Abstained, a.Queries), rate(a.NotSure, a.Queries), fires, rate(f.PreloadRight, fires))
			if f.Queries > 0 {
				assert.LessOrEqual(t, float64(f.Abstained)/float64(f.Queries), 0.02, "%s, %s, %s: false \"nothing fits\"", r.set, r.size, h)
			}
			if fires > 0 {
				assert.GreaterOrEqual(t, float64(f.PreloadRight)/float64(fires), 0.9, "%s, %s, %s: preload precision", r.set, r.size, h)
			}
		}
	}
	t.Log("\n" + b.String())
	checkBlock(t, qualityDoc, "TestCatalogSizes", b.String())
}

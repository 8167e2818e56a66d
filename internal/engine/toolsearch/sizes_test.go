package toolsearch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// everydayQueries is the everyday set: ordinary phrasings over the
// filesystem and memory servers of testdata/wild (requests, requests no
// tool of theirs addresses, and tasks of several steps in one sentence),
// written for issue 47 before any change was measured on it.
const everydayQueries = "../../../testdata/queries/everyday.jsonl"

// everydayCatalogs are the two real npm servers the everyday set is over
// (23 tools).
var everydayCatalogs = []string{
	"../../../testdata/wild/modelcontextprotocol__server-filesystem.json",
	"../../../testdata/wild/modelcontextprotocol__server-memory.json",
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
	qs := append(loadQueries(t, "../../../testdata/queries/dev.jsonl"), loadQueries(t, noMatchQueries)...)
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
	if !longtest.On() || raceEnabled {
		t.Skip("long, without -race: set TOOLSHELF_LONG=1 (the dev set over 40 catalog unions; .ci/run runs it)")
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
			if f.Queries > 0 && strings.HasPrefix(r.set, "dev") {
				// The bar both halves of the unions meet (the check
				// halves since issue 47's second round); the everyday
				// set is reported (docs/search-quality.md says which
				// requests miss it).
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

// TestTopRightNeverNothingFits (issue 47): over the filesystem and memory
// servers (23 tools), a request whose top-ranked tool is one it needs is
// never told that nothing fits — the model would stop looking while the
// index lists the right name. The requests: the everyday set's, and the
// issue's own example, "knowledge graph entity", whose words every memory
// tool shares. (Until file names counted as words, "have a look at this
// picture, photo.png" was left out: read_media_file ranked first on a
// 0.45 synonym, picture → image, alone.)
func TestTopRightNeverNothingFits(t *testing.T) {
	plan, err := PlanCatalogs(everydayCatalogs...)
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)
	qs := append(loadQueries(t, everydayQueries), EvalQuery{ID: "issue-47", Query: []string{"knowledge graph entity"}, Expect: []string{"mcp__memory__create_entities"}})
	checked := 0
	for _, q := range qs {
		hits, err := s.Search(context.Background(), q.Query, 5, Scope{})
		require.NoError(t, err)
		if len(q.Expect) == 0 || rankOf(hits, q.Expect) != 1 {
			continue
		}
		checked++
		ans, err := s.answerFor(context.Background(), q.Query)
		require.NoError(t, err)
		assert.False(t, ans.abstained, "%s %q: top-ranked %s is right, answer: %s", q.ID, q.Query[0], hits[0].Name, ans.text)
		assert.False(t, strings.Contains(ans.text, "answer without a tool"), ans.text)
	}
	assert.Greater(t, checked, 10, "requests whose top-ranked tool is right")
}

// TestGroupEvidenceSameAtEverySize: words every tool of a server shares
// are evidence for that server — 1 a word for a server alone, beside one
// other, or beside twenty — while they tell its tools apart by nothing;
// a request none of the catalog's words address has none.
func TestGroupEvidenceSameAtEverySize(t *testing.T) {
	for _, others := range []int{0, 1, 20} {
		var tools []*registry.Tool
		for _, n := range []string{"create_entities", "delete_entities", "add_observations", "read_all", "open_nodes"} {
			tools = append(tools, &registry.Tool{Name: "mcp__memory__" + n, Description: strings.ReplaceAll(n, "_", " ") + " in the knowledge graph"})
		}
		for i := range others {
			for j := range 4 {
				tools = append(tools, &registry.Tool{Name: fmt.Sprintf("mcp__srv%02d__op_%d", i, j), Description: fmt.Sprintf("Operation %d on record %d of the ledger.", j, i)})
			}
		}
		ix, err := (&BM25F{}).Index(context.Background(), tools)
		require.NoError(t, err)
		hits, err := ix.Search(context.Background(), []string{"knowledge graph"}, 5)
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		assert.True(t, strings.HasPrefix(hits[0].Name, "mcp__memory__"), "others=%d: %s", others, hits[0].Name)
		assert.InDelta(t, 2, hits[0].Fit.Group, 0.01, "others=%d: two words, each a word of one server: %+v", others, hits[0].Fit)
		assert.Less(t, hits[0].Fit.Evidence, nothingFitsEvidence, "others=%d: no one tool stands out: %+v", others, hits[0].Fit)
		assert.False(t, NothingFits(hits), "others=%d", others)
		hits, err = ix.Search(context.Background(), []string{"what's the weather"}, 5)
		require.NoError(t, err)
		assert.Empty(t, hits, "others=%d", others)
	}
}

// TestNotSureClosestServerFirst: a search that is not sure lists the
// tools of the server with the most evidence for the request first.
func TestNotSureClosestServerFirst(t *testing.T) {
	hits := []search.Hit{
		{Name: "mcp__fs__read_file", Fit: search.Fit{Judged: true, Group: 0.5}},
		{Name: "mcp__memory__open_nodes", Fit: search.Fit{Judged: true, Group: 1.2}},
		{Name: "mcp__fs__write_file", Fit: search.Fit{Judged: true, Group: 0.4}},
		{Name: "mcp__memory__read_graph", Fit: search.Fit{Judged: true, Group: 1.1}},
	}
	tools := make([]*registry.Tool, len(hits))
	for i, h := range hits {
		tools[i] = &registry.Tool{Name: h.Name}
	}
	var got []string
	for _, tl := range closestServerFirst(hits, tools) {
		got = append(got, tl.Name)
	}
	assert.Equal(t, []string{"mcp__memory__open_nodes", "mcp__memory__read_graph", "mcp__fs__read_file", "mcp__fs__write_file"}, got)
}

// TestExplainShowsServerEvidence: --explain says what each word is worth
// to the tool's server, and the evidence it adds up to is the hit's
// Fit.Group ("knowledge" and "graph" earned 0 in the tool on 5b5fce3 and
// said nothing more).
func TestExplainShowsServerEvidence(t *testing.T) {
	plan, err := PlanCatalogs(everydayCatalogs...)
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)
	q := []string{"knowledge graph entity"}
	hits, err := s.Search(context.Background(), q, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	require.Equal(t, "mcp__memory__create_entities", hits[0].Name)
	e, err := s.Explain(context.Background(), q, hits[0].Name, Scope{})
	require.NoError(t, err)
	assert.InDelta(t, hits[0].Fit.Group, e.Group, 1e-3)
	assert.InDelta(t, 1, e.Words[0].Server, 1e-6, "knowledge: a word of one server")
	var b strings.Builder
	require.NoError(t, e.WriteText(&b))
	assert.Contains(t, b.String(), `"knowledge": covers 0.000 of its mass 0.927; evidence 1.000 for the tool's server`)
	assert.Contains(t, b.String(), "evidence with the server counted: 3.000")
}

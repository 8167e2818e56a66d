package toolsearch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// noMatchQueries is the no-match set: requests no tool of the dev
// catalogs serves (chit-chat, questions a model answers itself, tools no
// catalog has), English and Chinese, written for this project.
const noMatchQueries = "../../../testdata/queries/nomatch.jsonl"

// abstentionRows runs the no-match set over the dev catalogs and reports
// how often tool_search says nothing fits there and on the positive sets
// (where it still names the closest tools, so recall is unchanged, but the
// model pays a second call to load one).
func abstentionRows(t *testing.T, runs []qualityRun) string {
	plan, err := PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)
	rep, err := Eval(context.Background(), s, loadQueries(t, noMatchQueries))
	require.NoError(t, err)
	a := rep.Abstention
	require.NotNil(t, a)
	tu, ch := a.ByHalf[HalfTune], a.ByHalf[HalfCheck]
	var b strings.Builder
	b.WriteString("Three answers (see \"Abstention\"): \"nothing fits\" (one line naming the closest tools, answer without a tool) and \"not sure\" (candidates listed, nothing loaded), share of queries:\n\n")
	b.WriteString("| query set | nothing fits, tune | nothing fits, check | not sure, tune | not sure, check | schemas loaded per query |\n|---|--:|--:|--:|--:|--:|\n")
	rate := func(n, of int) string { return fmt.Sprintf("%.3f (%d/%d)", float64(n)/float64(of), n, of) }
	fmt.Fprintf(&b, "| no-match (%d queries over the dev catalogs; want high) | %s | %s | %s | %s | %.2f |\n", a.Queries,
		rate(tu.Abstained, tu.Queries), rate(ch.Abstained, ch.Queries), rate(tu.NotSure, tu.Queries), rate(ch.NotSure, ch.Queries), float64(a.Loaded)/float64(a.Queries))
	for _, r := range runs {
		tf, cf := r.ours.ByHalf[HalfTune], r.ours.ByHalf[HalfCheck]
		fmt.Fprintf(&b, "| %s (want low) | %s | %s | %s | %s | — |\n", strings.Fields(r.set.name)[0],
			rate(tf.Abstained, tf.Queries), rate(cf.Abstained, cf.Queries), rate(tf.NotSure, tf.Queries), rate(cf.NotSure, cf.Queries))
		// The floor of "nothing fits" was chosen on the tune halves: at
		// most 2% of a positive set's queries told nothing fits.
		assert.LessOrEqual(t, float64(tf.Abstained)/float64(tf.Queries), 0.02, "%s: false \"nothing fits\" on the tune half", r.set.name)
	}
	// Every no-match query the old rule abstained on still loads nothing:
	// "nothing fits" or "not sure".
	assert.GreaterOrEqual(t, float64(ch.Abstained+ch.NotSure)/float64(ch.Queries), 0.8, "no-match check half: nothing loaded")
	b.WriteString("\nThe no-match set's chit-chat (40 queries, no tool of any catalog serves them) over each set's catalogs, all queries (other catalogs do have flight, weather or recipe tools):\n\n| catalogs | chit-chat abstained |\n|---|--:|\n")
	var chat []EvalQuery
	for _, q := range loadQueries(t, noMatchQueries) {
		if q.Kind == "chit-chat" {
			chat = append(chat, q)
		}
	}
	for _, qs := range querySets() {
		plan, err := PlanCatalogs(qs.catalogs(t)...)
		require.NoError(t, err)
		s, err := New(plan, nil)
		require.NoError(t, err)
		rep, err := Eval(context.Background(), s, chat)
		require.NoError(t, err)
		fmt.Fprintf(&b, "| %s | %.3f (%d/%d) |\n", qs.name, rep.Abstention.Rate(), rep.Abstention.Abstained, rep.Abstention.Queries)
	}
	return b.String()
}

// TestAbstainsInOneLine: a request no tool serves comes back as one line
// naming the closest tools, with nothing loaded; a request a tool serves
// still loads it.
func TestAbstainsInOneLine(t *testing.T) {
	s := devSearcher(t)
	loaded := NewLoadedSet()
	r := call(t, s, `{"queries": ["what's a good name for my cat?"]}`, Scope{Loaded: loaded})
	require.False(t, r.IsError, r.Text)
	assert.NotContains(t, r.Text, "\n", "one line")
	assert.True(t, strings.HasPrefix(r.Text, `No deferred tool fits "what's a good name for my cat?" (closest by name, not loaded: mcp__`), r.Text)
	assert.NotContains(t, r.Text, "Parameters")
	assert.Empty(t, loaded.Names())
	assert.NotEmpty(t, fuzzNamed(r.Text), "the closest tools are named")

	r = call(t, s, `{"queries": ["take a screenshot of the page"]}`, Scope{Loaded: loaded})
	assert.Contains(t, r.Text, "## mcp__playwright__browser_take_screenshot")
	assert.Contains(t, loaded.Names(), "mcp__playwright__browser_take_screenshot")
}

// TestFitSameAcrossCatalogSizes: a word that exactly one tool has, in its
// name, is credible whether the catalog has 3 tools or 300; a query whose
// one matching word is buried in a description, with the rest unknown, is
// not.
func TestFitSameAcrossCatalogSizes(t *testing.T) {
	for _, n := range []int{3, 30, 300} {
		var tools []*registry.Tool
		tools = append(tools, &registry.Tool{Name: "translate_text", Description: "Translate text between languages."})
		for i := 1; i < n; i++ {
			tools = append(tools, &registry.Tool{Name: fmt.Sprintf("tool_%03d", i), Description: fmt.Sprintf("Manage record %d of the inventory; see the robots notes.", i)})
		}
		ix, err := (&BM25F{}).Index(context.Background(), tools)
		require.NoError(t, err)
		hits, err := ix.Search(context.Background(), []string{"translate this"}, 5)
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		assert.Equal(t, "translate_text", hits[0].Name)
		assert.True(t, hits[0].Fit.Credible(), "n=%d: %+v", n, hits[0].Fit)
		assert.False(t, Abstains(hits), "n=%d", n)
		hits, err = ix.Search(context.Background(), []string{"are you a robot pretending to sing lullabies"}, 5)
		require.NoError(t, err)
		if len(hits) > 0 {
			assert.True(t, Abstains(hits), "n=%d: %+v", n, hits[0])
		}
	}
}

// TestReadQueriesNoMatchRows: "expect": [] is a no-match row; a row
// without "expect" is still refused.
func TestReadQueriesNoMatchRows(t *testing.T) {
	qs, err := ReadQueries(strings.NewReader(`{"id":"n1","query":"good night","expect":[]}` + "\n"))
	require.NoError(t, err)
	require.Len(t, qs, 1)
	assert.Empty(t, qs[0].Expect)
	_, err = ReadQueries(strings.NewReader(`{"id":"n1","query":"good night"}`))
	assert.ErrorIs(t, err, ErrQueries)
}

// TestEvalAbstention: no-match rows are counted apart from recall.
func TestEvalAbstention(t *testing.T) {
	s := devSearcher(t)
	qs := []EvalQuery{
		// ("good night" was the example until issue 47: night is "the time
		// after sunset", which names the time server, so the answer is now
		// "not sure" with its tools first.)
		{ID: "a", Query: []string{"what's a good name for my cat?"}, Expect: []string{}},
		{ID: "b", Query: []string{"take a screenshot of the page"}, Expect: []string{"mcp__playwright__browser_take_screenshot"}},
	}
	rep, err := Eval(context.Background(), s, qs)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Queries)
	assert.Equal(t, 1.0, rep.RecallAt1)
	require.NotNil(t, rep.Abstention)
	assert.Equal(t, 1, rep.Abstention.Queries)
	assert.Equal(t, 1, rep.Abstention.Abstained)
	assert.Equal(t, 0, rep.Abstention.Loaded)
}

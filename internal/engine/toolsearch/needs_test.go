package toolsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitNeeds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"create pull request", nil},
		{"pull request and issue", nil},
		{"Read the paper on arXiv, then save a summary to notes.md", []string{"Read the paper on arXiv,", "then save a summary to notes.md"}},
		{"list the pods in default. Then delete the failing deployment", []string{"list the pods in default.", "Then delete the failing deployment"}},
		{"打开网页然后截图", []string{"打开网页", "然后截图"}},
	} {
		assert.Equal(t, c.want, splitNeeds([]string{c.in}), c.in)
	}
	many := strings.Repeat("open the page and click the button. ", 10)
	assert.LessOrEqual(t, len(splitNeeds([]string{many})), maxNeeds)
}

// TestSeveralNeedsCovered: a request with two needs brings the head of
// each up front, the whole query's best hit first; the answer shows both
// heads (a schema for the best, the other at the top of the list, to load
// by name).
func TestSeveralNeedsCovered(t *testing.T) {
	s := devSearcher(t)
	q := []string{"take a screenshot of the page, then create an issue on GitHub with it"}
	plain, _, err := rank(context.Background(), s.index, q, 5)
	require.NoError(t, err)
	hits, heads, err := s.search(context.Background(), q, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, plain[0].Name, hits[0].Name, "the best hit stays first")
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.Name
	}
	assert.Contains(t, names[:heads], "mcp__playwright__browser_take_screenshot", "%v", names)
	assert.True(t, slices.ContainsFunc(names[:heads], func(n string) bool { return strings.HasPrefix(n, "mcp__github__") && strings.Contains(n, "issue") }), "%v", names)
	full := 0
	for _, sh := range s.presentation(hits) {
		if sh == ShapeFull {
			full++
		}
	}
	assert.LessOrEqual(t, full, s.opts.MaxFullSchemas)
	assert.GreaterOrEqual(t, full, 1)
	ans, err := s.answerFor(context.Background(), q)
	require.NoError(t, err)
	shown := append(ans.loaded, ans.listed...)
	for _, h := range names[:heads] {
		assert.Less(t, slices.Index(shown, h), heads+1, "head %s is shown near the top: %v", h, shown)
	}
}

// multiNeedRows reports all-expected recall@5 on the sets whose rows list
// tools needed together, before (one ranking of the whole request) and
// after (needs covered), tune and check halves.
func multiNeedRows(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| query set | multi-tool queries | before tune | before check | after tune | after check |\n|---|--:|--:|--:|--:|--:|\n")
	for _, qs := range querySets()[1:] {
		plan, err := PlanCatalogs(qs.catalogs(t)...)
		require.NoError(t, err)
		s, err := New(plan, nil)
		require.NoError(t, err)
		queries := loadQueries(t, qs.queries)
		after, err := Eval(context.Background(), s, queries)
		require.NoError(t, err)
		before, err := evaluate(context.Background(), queries, func(ctx context.Context, _ int, q []string) (evalRun, error) {
			hits, _, err := rank(ctx, s.index, q, 5)
			return evalRun{hits: hits}, err
		})
		require.NoError(t, err)
		bt, bc, at, ac := before.ByHalf[HalfTune], before.ByHalf[HalfCheck], after.ByHalf[HalfTune], after.ByHalf[HalfCheck]
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %.3f |\n", strings.Fields(qs.name)[0], after.MultiQueries, bt.AllAt5, bc.AllAt5, at.AllAt5, ac.AllAt5)
		assert.GreaterOrEqual(t, ac.AllAt5, bc.AllAt5, "%s: all-expected recall@5 on the check half", qs.name)
	}
	return b.String()
}

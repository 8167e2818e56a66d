package toolsearch

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/search"
)

// curveBudgets are the list budgets of the curve (characters of the
// candidate list; 0 here means no list at all).
var curveBudgets = []int{0, 150, 300, 450, 600, 900, 1500}

// TestListBudgetCurve reports visible recall and tokens per answer
// against the list budget, tune and check halves, next to the ranking's
// R@10, and keeps the figures in docs/search-quality.md. The dev set runs
// always; the other sets only in long runs (TOOLSHELF_LONG=1, not under
// the race detector), which check their own block of the page.
func TestListBudgetCurve(t *testing.T) {
	sets := querySets()
	blocks := []struct {
		name string
		sets []querySet
	}{{"dev", sets[:1]}}
	if longtest.On() && !raceEnabled {
		blocks = append(blocks, struct {
			name string
			sets []querySet
		}{"others", sets[1:]})
	}
	for _, bl := range blocks {
		var b strings.Builder
		b.WriteString("| query set | list budget (chars) | tune R@10 | tune visible | tune tokens | check R@10 | check visible | check tokens |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, qs := range bl.sets {
			plan, err := PlanCatalogs(qs.catalogs(t)...)
			require.NoError(t, err)
			queries := loadQueries(t, qs.queries)
			prev := -1.0
			for _, budget := range curveBudgets {
				lb := budget
				if lb == 0 {
					lb = -1
				}
				s, err := New(plan, &search.Options{ListBudget: lb})
				require.NoError(t, err)
				rep, err := Eval(context.Background(), s, queries)
				require.NoError(t, err)
				tu, ch := rep.ByHalf[HalfTune], rep.ByHalf[HalfCheck]
				fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.1f | %.3f | %.3f | %.1f |\n", strings.Fields(qs.name)[0], budget,
					tu.RecallAt10, tu.Visible, tu.MeanTokens, ch.RecallAt10, ch.Visible, ch.MeanTokens)
				assert.GreaterOrEqual(t, rep.Visible, prev, "%s: visible recall never falls as the budget grows", qs.name)
				prev = rep.Visible
			}
		}
		checkBlock(t, qualityDoc, "TestListBudgetCurve "+bl.name, b.String())
	}
}

// checkBlock compares the part of the file at path between the markers
// named name with got, or rewrites it under TOOLSHELF_UPDATE=1.
func checkBlock(t *testing.T, path, name, got string) {
	t.Helper()
	begin, end := "<!-- "+name+": begin -->\n", "<!-- "+name+": end -->\n"
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	require.True(t, i >= 0 && j > i, "%s needs the markers %q", path, begin)
	if goldenfile.Updating() {
		doc = doc[:i+len(begin)] + got + doc[j:]
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		return
	}
	assert.Equal(t, doc[i+len(begin):j], got, "figures changed: run TOOLSHELF_UPDATE=1 TOOLSHELF_LONG=1 go test ./internal/engine/toolsearch -run TestListBudgetCurve")
}

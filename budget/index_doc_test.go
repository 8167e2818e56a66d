package budget_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// fullNamesIndex rewrites an index the way it was written before short
// names: every name indented under "mcp__<server>:" as its full name. It
// is the comparison the docs print, computed, not remembered.
func fullNamesIndex(index string) string {
	lines := strings.Split(index, "\n")
	server := ""
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "  "):
			if !strings.HasPrefix(l[2:], toolname.MCPPrefix) {
				lines[i] = "  " + toolname.MCPPrefix + server + "__" + l[2:]
			}
		case strings.HasPrefix(l, toolname.MCPPrefix) && strings.Contains(l, ":"):
			server = strings.TrimPrefix(l[:strings.Index(l, ":")], toolname.MCPPrefix)
		}
	}
	return strings.Join(lines, "\n")
}

// TestIndexDoc measures the name index of the ten shared catalogs, all
// deferred, with o200k_base: short names under each server's header
// against the same index with full names, and keeps the table in
// docs/budget.md. The index stays under 7 tokens a name.
func TestIndexDoc(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "catalogs", "*.tools.json"))
	require.NoError(t, err)
	require.Len(t, paths, 10)
	c, err := budget.NewCounter(budget.O200kBase)
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("| servers | deferred names | index, chars | o200k tokens | tokens a name | with full names: chars, tokens, a name |\n|---|--:|--:|--:|--:|--:|\n")
	row := func(label string, files []string) float64 {
		reg := registry.New(nil)
		for _, p := range files {
			cat, err := registry.LoadCatalog(p)
			require.NoError(t, err)
			require.NoError(t, reg.Import(cat))
		}
		plan, err := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
		require.NoError(t, err)
		_, index, err := request.EntryDefinitions(plan, nil)
		require.NoError(t, err)
		full := fullNamesIndex(index)
		n := len(plan.Deferred())
		short, long := c.Count(budget.KindProse, index), c.Count(budget.KindProse, full)
		assert.Less(t, short.N, long.N)
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.1f | %s, %s, %.1f |\n", label, n,
			textfmt.Thousands(len([]rune(index))), textfmt.Thousands(short.N), float64(short.N)/float64(n),
			textfmt.Thousands(len([]rune(full))), textfmt.Thousands(long.N), float64(long.N)/float64(n))
		return float64(short.N) / float64(n)
	}
	for _, p := range paths {
		row(strings.TrimSuffix(filepath.Base(p), ".tools.json"), []string{p})
	}
	perName := row("all ten", paths)
	assert.LessOrEqual(t, perName, 7.0, "the index of the ten shared catalogs, o200k tokens a name")

	path := filepath.Join("..", "docs", "budget.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	const begin, end = "<!-- index:begin (TOOLSHELF_UPDATE=1 go test ./budget -run TestIndexDoc) -->\n", "<!-- index:end -->"
	head, rest, ok := strings.Cut(string(doc), begin)
	require.True(t, ok, "docs/budget.md lacks %q", begin)
	_, tail, ok := strings.Cut(rest, end)
	require.True(t, ok, "docs/budget.md lacks %q", end)
	got := head + begin + b.String() + end + tail
	golden(t, path, got)
}

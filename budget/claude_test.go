package budget_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/estimate"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// calibrationTools loads a calibration catalog the way internal/cmd/claudecal
// does: an MCP tools/list takes its file name as its server.
func calibrationTools(t *testing.T, name string) []*registry.Tool {
	t.Helper()
	c, err := registry.LoadCatalog(filepath.Join("..", filepath.FromSlash(name)))
	require.NoError(t, err)
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".json"), ".tools")
	if c.Server == "" && c.Format == registry.FormatMCP {
		c.Server = strings.NewReplacer(".", "-", "_", "-").Replace(base)
	}
	reg := registry.New(nil)
	if c.Server != "" {
		require.NoError(t, reg.AddGroup(registry.Group{Name: c.Server, Description: c.Description}))
	}
	require.NoError(t, reg.Import(c))
	return reg.Snapshot().Tools()
}

// TestClaudeCounterOnCalibrationCatalogs counts every calibration catalog
// with a claude-* counter: the o200k sums are the recorded ones (the data
// is current), the estimate is marked, reproduces the calibrated figure,
// and is within the stated band of the Claude tokenizer's count.
func TestClaudeCounterOnCalibrationCatalogs(t *testing.T) {
	cal := estimate.Get()
	claude := budget.CounterForModel("claude-sonnet-4-5")
	o200k, err := budget.NewCounter(budget.O200kBase)
	require.NoError(t, err)
	require.Equal(t, budget.ClaudeEstimate, claude.Encoding())
	require.False(t, claude.Exact())
	for _, c := range cal.Catalogs {
		tools := calibrationTools(t, c.Name)
		require.Len(t, tools, c.Tools, c.Name)
		var prose, js int
		for _, tool := range tools {
			prose += o200k.Count(budget.KindProse, tool.Description).N
			js += o200k.Count(budget.KindJSON, string(tool.ModelSchema())).N
		}
		require.Equal(t, [2]int{c.ProseO200k, c.JSONO200k}, [2]int{prose, js}, "%s: stale data, run go run ./internal/cmd/claudecal", c.Name)

		got := budget.CountTools(claude, tools)
		assert.True(t, got.Estimate, c.Name)
		assert.Equal(t, cal.Estimate(c), got.N, c.Name)
		errPct := 100 * math.Abs(float64(got.N-c.Claude())) / float64(c.Claude())
		assert.LessOrEqual(t, errPct, cal.Band+1e-9, c.Name)
	}
}

// TestClaudeCount checks Count and the cached path scale an exact o200k
// count by the kind's ratio and mark it.
func TestClaudeCount(t *testing.T) {
	cal := estimate.Get()
	claude := budget.CounterForModel("anthropic/claude-opus-4-1")
	assert.False(t, claude.Loaded(), "o200k loads on the first count, not before")
	o200k, _ := budget.NewCounter(budget.O200kBase)
	text := strings.Repeat(`{"type":"object","properties":{"path":{"type":"string","description":"The file to read"}}}`, 20)
	n := o200k.Count(budget.KindJSON, text).N
	want := budget.Tokens{N: int(math.Round(float64(n) * cal.JSONRatio)), Estimate: true}
	assert.Equal(t, want, claude.Count(budget.KindJSON, text))
	assert.Equal(t, want, claude.CountFrozen(budget.KindJSON, text))
	assert.Equal(t, want, claude.CountFrozen(budget.KindJSON, text), "from the cache")
	p := o200k.Count(budget.KindProse, text).N
	assert.Equal(t, int(math.Round(float64(p)*cal.ProseRatio)), claude.Count(budget.KindProse, text).N)
	assert.Contains(t, claude.Method(), "calibrated on")
	assert.Empty(t, o200k.Method())
}

// TestClaudeDoc keeps the calibration table of docs/budget.md: per
// catalog, the Claude tokenizer's count, the estimate and its error.
func TestClaudeDoc(t *testing.T) {
	cal := estimate.Get()
	var b strings.Builder
	fmt.Fprintf(&b, "`%s`\n\n", cal.Method())
	fmt.Fprintf(&b, "Ratios: prose × %.3f, JSON × %.3f, over %d texts (%d tools in %d catalogs); error band ±%.1f%% per catalog.\n\n",
		cal.ProseRatio, cal.JSONRatio, cal.Texts, cal.Texts/2, len(cal.Catalogs), cal.Band)
	large := 0.0
	for _, c := range cal.Catalogs {
		if c.Claude() >= 5000 {
			large = max(large, math.Abs(cal.Error(c)))
		}
	}
	fmt.Fprintf(&b, "On the catalogs of 5,000 tokens or more the error is within ±%.1f%%.\n\n", large)
	b.WriteString("| catalog | tools | o200k | Claude tokenizer | estimate | error |\n|---|--:|--:|--:|--:|--:|\n")
	for _, c := range cal.Catalogs {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %+.1f%% |\n", strings.TrimPrefix(c.Name, "testdata/"), c.Tools,
			textfmt.Thousands(c.ProseO200k+c.JSONO200k), textfmt.Thousands(c.Claude()), textfmt.Thousands(cal.Estimate(c)), cal.Error(c))
	}
	path := filepath.Join("..", "docs", "budget.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	const begin, end = "<!-- claude:begin (TOOLSHELF_UPDATE=1 go test ./budget -run TestClaudeDoc) -->\n", "<!-- claude:end -->"
	head, rest, ok := strings.Cut(string(doc), begin)
	require.True(t, ok, "docs/budget.md lacks %q", begin)
	_, tail, ok := strings.Cut(rest, end)
	require.True(t, ok, "docs/budget.md lacks %q", end)
	golden(t, path, head+begin+b.String()+end+tail)
}

// TestClaudeDocHarness recomputes the before/after figures docs/budget.md
// quotes for the harness fixture and the GitHub catalog with the entry
// tools: the character estimate Claude had, o200k, and the calibrated one.
func TestClaudeDocHarness(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "budget.md"))
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(doc)), " ")
	for _, path := range []string{testdata("fixtures", "harness-catalog.json"), testdata("catalogs", "github.tools.json")} {
		assert.Contains(t, text, beforeAfter(t, path), path)
	}
}

// beforeAfter is the docs' sentence on one catalog's figures with the
// entry tools: the character estimate, o200k and the Claude estimate.
func beforeAfter(t *testing.T, path string) string {
	c, err := registry.LoadCatalog(path)
	require.NoError(t, err)
	reg := registry.New(nil)
	if c.Server != "" { // as the CLI loads it: a server's tools deferred
		require.NoError(t, reg.AddGroup(registry.Group{Name: c.Server, Description: c.Description, DefaultDefer: registry.DeferTrue}))
	}
	require.NoError(t, reg.Import(c))
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	require.NoError(t, err)
	entry, index, err := request.EntryDefinitions(plan, nil)
	require.NoError(t, err)
	with := func(enc budget.Encoding) budget.Tokens {
		c, err := budget.NewCounter(enc)
		require.NoError(t, err)
		acc, err := budget.NewAccount(plan, &budget.AccountOptions{Counter: c, Entry: entry, Index: index})
		require.NoError(t, err)
		return budget.Tokens{N: acc.Tokens.AllWithEntry, Estimate: acc.Tokens.Estimate}
	}
	chars, o200k, claude := with(budget.EncodingEstimate), with(budget.O200kBase), with(budget.ClaudeEstimate)
	return fmt.Sprintf("said %s tokens with the entry tools, %.2f× the %s of o200k; it now says %s (%.2f×)",
		chars, float64(chars.N)/float64(o200k.N), o200k, claude, float64(claude.N)/float64(o200k.N))
}

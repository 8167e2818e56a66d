package budget_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/registry"
)

// TestAccountReproducesPublication checks each figure of the published
// 60-tool accounting (testdata/fixtures/README.md) as computed from the
// fixture catalog.
func TestAccountReproducesPublication(t *testing.T) {
	plan := loadPlan(t, nil, testdata("fixtures", "harness-catalog.json"))
	// The publication counted the two entry tools at 886 and 828 chars.
	entry := []*registry.Tool{sizedTool(registry.ToolSearchName, 886), sizedTool(registry.DeferExecuteName, 828)}
	acc, err := budget.NewAccount(plan, &budget.AccountOptions{Entry: entry})
	require.NoError(t, err)

	assert.Equal(t, 58, acc.ToolsTotal)
	assert.Equal(t, 109405, acc.CharsTotal)
	assert.Equal(t, 111119, acc.CharsWithEntry)
	assert.Equal(t, 23, acc.DeferredCount)
	assert.Equal(t, 41418, acc.DeferredChars)
	assert.Equal(t, "37.3%", pct1(acc.DeferredShare))
	assert.Equal(t, 248, acc.NamesChars)
	assert.Equal(t, 271, acc.IndexChars)
	assert.Equal(t, 41147, acc.NetSaving)
	assert.Equal(t, 41147-886-828, acc.NetSavingAfterEntry)
	assert.Equal(t, 35, acc.ResidentCount)
	assert.Equal(t, 67987, acc.ResidentChars)
	assert.Equal(t, 69701, acc.ResidentWithEntry)
	assert.Equal(t, 167, int(math.Round(acc.RatioDeferred)))
	assert.Equal(t, "VideoGen", acc.LongestName)
	assert.Equal(t, 18671, acc.LongestChars)
	assert.Equal(t, 2334, int(math.Round(acc.RatioLongest)))
	assert.Equal(t, 45, int(math.Round(acc.LongestShare*100)))
	assert.InDelta(t, 41147.0/20000, acc.SavingMultiple, 1e-9)
	assert.Equal(t, 27780, acc.Published.AllWithEntry)
	assert.Equal(t, 68, acc.Published.Index)
	assert.Equal(t, 10287, acc.Published.NetSaving)
	assert.True(t, acc.Published.Estimate)
	// Default counter: estimates, marked as such.
	assert.True(t, acc.Tokens.Estimate)
	assert.Equal(t, budget.EncodingEstimate, acc.Tokens.Encoding)
}

func pct1(f float64) string { return formatPct(f, 1) }

func TestAccountExactTokens(t *testing.T) {
	plan := loadPlan(t, nil, testdata("fixtures", "harness-catalog.json"))
	c, err := budget.NewCounter(budget.O200kBase)
	require.NoError(t, err)
	acc, err := budget.NewAccount(plan, &budget.AccountOptions{Counter: c})
	require.NoError(t, err)
	assert.False(t, acc.Tokens.Estimate)
	assert.Equal(t, budget.O200kBase, acc.Tokens.Encoding)
	// Every figure is the sum of its parts.
	assert.Equal(t, acc.Tokens.All, acc.Tokens.Deferred+acc.Tokens.Resident)
	assert.Equal(t, acc.Tokens.NetSaving, acc.Tokens.Deferred-acc.Tokens.Index)
	assert.Zero(t, acc.EntryChars, "no entry tools given")
	// The same tools counted one by one give the same total.
	sum := 0
	for _, tool := range append(plan.Resident(), plan.Deferred()...) {
		sum += c.Count(budget.KindProse, tool.Description).N + c.Count(budget.KindJSON, string(tool.ModelSchema())).N
	}
	assert.Equal(t, sum, acc.Tokens.All)
}

func TestAccountRulesOverrideFlags(t *testing.T) {
	// NoDefer(VideoGen) keeps the largest tool resident: 22 deferred.
	layer := mustLayer(t, "NoDefer(VideoGen)")
	plan := loadPlan(t, layer, testdata("fixtures", "harness-catalog.json"))
	acc, err := budget.NewAccount(plan, nil)
	require.NoError(t, err)
	assert.Equal(t, 22, acc.DeferredCount)
	assert.Equal(t, 41418-18671, acc.DeferredChars)
	assert.NotEqual(t, "VideoGen", acc.LongestName)
}

func TestAccountNilPlan(t *testing.T) {
	_, err := budget.NewAccount(nil, nil)
	assert.ErrorIs(t, err, budget.ErrNoPlan)
}

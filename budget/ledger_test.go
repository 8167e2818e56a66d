package budget_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// harnessAccount is the account of the published 60-tool harness with the
// entry tools and index a session sends, counted with o200k_base.
func harnessAccount(t *testing.T) (*budget.Account, []*registry.Tool, string, *budget.Counter) {
	t.Helper()
	plan := loadPlan(t, nil, testdata("fixtures", "harness-catalog.json"))
	entry, index, err := request.EntryDefinitions(plan, nil)
	require.NoError(t, err)
	c, err := budget.NewCounter(budget.O200kBase)
	require.NoError(t, err)
	acc, err := budget.NewAccount(plan, &budget.AccountOptions{Counter: c, Entry: entry, Index: index})
	require.NoError(t, err)
	return acc, entry, index, c
}

// TestLedgerResidentDelta: the counterfactual delta is the tools section
// with every tool resident minus the one a deferring session sends
// (resident tools, entry tools, index), counted with the same tokenizer.
func TestLedgerResidentDelta(t *testing.T) {
	acc, entry, index, c := harnessAccount(t)
	plan := loadPlan(t, nil, testdata("fixtures", "harness-catalog.json"))
	count := func(tools []*registry.Tool) int {
		n := 0
		for _, tl := range tools {
			n += c.Count(budget.KindProse, tl.Description).N + c.Count(budget.KindJSON, string(tl.ModelSchema())).N
		}
		return n
	}
	allResident := count(plan.Resident()) + count(plan.Deferred())
	deferredSection := count(plan.Resident()) + count(entry) + c.Count(budget.KindProse, index).N
	l := budget.NewLedger(acc)
	require.Positive(t, l.ResidentDelta())
	assert.Equal(t, allResident-deferredSection, l.ResidentDelta())
	assert.False(t, l.Estimate(), "o200k_base counts exactly")
}

// TestLedgerFigures: lines and totals are the provider's figures as fed,
// the hit ratio is cache reads over input, and the counterfactual adds the
// delta once a request (to the cache reads on turns that hit the cache).
func TestLedgerFigures(t *testing.T) {
	acc, _, _, _ := harnessAccount(t)
	l := budget.NewLedger(acc)
	d := l.ResidentDelta()
	usages := []request.Usage{
		{InputTokens: 3842, OutputTokens: 25, CacheWriteTokens: 3700},
		{InputTokens: 4347, OutputTokens: 40, CacheReadTokens: 3700, CacheWriteTokens: 500},
		{InputTokens: 4417, OutputTokens: 31, CacheReadTokens: 4200},
	}
	var sum request.Usage
	reads := 0
	for i, u := range usages {
		line := l.Add(u)
		assert.Equal(t, i+1, line.Turn)
		assert.Equal(t, u, line.Usage)
		assert.InDelta(t, float64(u.CacheReadTokens)/float64(u.InputTokens), line.HitRatio, 1e-12)
		assert.Equal(t, u.InputTokens+d, line.ResidentInput)
		assert.Equal(t, d, line.Saved)
		if u.CacheReadTokens > 0 {
			assert.Equal(t, u.CacheReadTokens+d, line.ResidentCacheRead)
			reads += u.CacheReadTokens + d
		} else {
			assert.Equal(t, 0, line.ResidentCacheRead)
		}
		sum.InputTokens += u.InputTokens
		sum.OutputTokens += u.OutputTokens
		sum.CacheReadTokens += u.CacheReadTokens
		sum.CacheWriteTokens += u.CacheWriteTokens
	}
	total := l.Total()
	assert.Equal(t, sum, total.Usage)
	assert.Equal(t, 3*d, total.Saved)
	assert.Equal(t, sum.InputTokens+3*d, total.ResidentInput)
	assert.Equal(t, reads, total.ResidentCacheRead)
	assert.InDelta(t, float64(sum.CacheReadTokens)/float64(sum.InputTokens), total.HitRatio, 1e-12)
	assert.Len(t, l.Turns(), 3)

	var b strings.Builder
	require.NoError(t, l.Write(&b))
	out := b.String()
	assert.Contains(t, out, textfmt.Thousands(sum.InputTokens))
	assert.Contains(t, out, textfmt.Thousands(3*d)+" input tokens over 3 requests")
	assert.Contains(t, out, "o200k_base")
	assert.NotContains(t, out, "~", "exact counts carry no estimate mark")
}

// TestLedgerEstimateMarked: with a counter that estimates, the
// counterfactual is marked.
func TestLedgerEstimateMarked(t *testing.T) {
	plan := loadPlan(t, nil, testdata("fixtures", "harness-catalog.json"))
	acc, err := budget.NewAccount(plan, nil)
	require.NoError(t, err)
	l := budget.NewLedger(acc)
	assert.True(t, l.Estimate())
	l.Add(request.Usage{InputTokens: 10})
	var b strings.Builder
	require.NoError(t, l.Write(&b))
	assert.Contains(t, b.String(), "~")

	empty := budget.NewLedger(nil)
	assert.Zero(t, empty.ResidentDelta())
	assert.Zero(t, empty.Total().HitRatio)
}

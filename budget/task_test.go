package budget_test

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

func TestTaskCostCountsEveryPrefill(t *testing.T) {
	tr, err := budget.ParseTranscript("t", []byte(`[
		{"role":"user","text":"hello there"},
		{"role":"assistant","tool_calls":[{"id":"1","name":"Read","arguments":{"path":"/a"}}]},
		{"role":"tool","call_id":"1","text":"{\"ok\":true}"},
		{"role":"assistant","text":"done"}]`))
	require.NoError(t, err)
	assert.Equal(t, 1, tr.ToolCalls)
	c, _ := budget.NewCounter(budget.O200kBase)
	prefix := []budget.Section{{Name: "system", Class: budget.ClassSystem, Text: "Be brief.", Frozen: true}}
	tc := c.TaskCost(prefix, tr)
	p := c.Count(budget.KindProse, "Be brief.").N
	m := make([]int, len(tr.Messages))
	for i, s := range tr.Messages {
		m[i] = c.Count(s.Kind, s.Text).N
	}
	assert.Equal(t, 2, tc.Requests)
	assert.Equal(t, []budget.Tokens{{N: p + m[0]}, {N: p + m[0] + m[1] + m[2]}}, tc.PerRequest)
	assert.Equal(t, budget.Tokens{N: 2*p + 2*m[0] + m[1] + m[2]}, tc.Input)
	assert.Equal(t, budget.Tokens{N: m[1] + m[3]}, tc.Output)

	cmp := budget.Compare(tc, tc)
	assert.Zero(t, cmp.Delta)
	assert.Contains(t, budget.TaskTable([]budget.TaskComparison{cmp}), "| t |")
}

// TestAccountIndependentOfRegistrationOrder imports the fixture's tools in
// shuffled orders: the account is the same.
func TestAccountIndependentOfRegistrationOrder(t *testing.T) {
	cat, err := registry.LoadCatalog(testdata("fixtures", "harness-catalog.json"))
	require.NoError(t, err)
	var first *budget.Account
	rng := rand.New(rand.NewSource(1))
	for range 5 {
		rng.Shuffle(len(cat.Tools), func(i, j int) { cat.Tools[i], cat.Tools[j] = cat.Tools[j], cat.Tools[i] })
		reg := registry.New(nil)
		require.NoError(t, reg.Import(cat))
		plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
		require.NoError(t, err)
		acc, err := budget.NewAccount(plan, nil)
		require.NoError(t, err)
		if first == nil {
			first = acc
			continue
		}
		assert.Equal(t, first, acc)
	}
}

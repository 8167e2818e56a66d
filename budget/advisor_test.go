package budget_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/registry"
)

func TestBoilerplateHarness(t *testing.T) {
	plan := loadPlan(t, nil, testdata("fixtures", "harness-catalog.json"))
	tools := append(plan.Resident(), plan.Deferred()...)
	reps := budget.Boilerplate(tools, nil)
	require.NotEmpty(t, reps)
	for i, r := range reps[:min(5, len(reps))] {
		t.Logf("%d× %d chars wasted %d: %.80s", r.Count, r.Chars, r.WastedChars, r.Text)
		_ = i
	}
	// Each reported sentence really occurs Count times across the descriptions.
	for _, r := range reps {
		n := 0
		for _, tool := range tools {
			n += strings.Count(tool.Description, r.Text)
		}
		assert.GreaterOrEqual(t, n, r.Count, r.Text)
		assert.Equal(t, r.Chars*(r.Count-1), r.WastedChars)
		assert.True(t, r.WastedTokens.Estimate)
	}
	// Sorted most wasteful first.
	for i := 1; i < len(reps); i++ {
		assert.GreaterOrEqual(t, reps[i-1].WastedChars, reps[i].WastedChars)
	}
}

func TestRepeatedFieldsGithub(t *testing.T) {
	plan := loadPlan(t, nil, testdata("catalogs", "github.tools.json"))
	c, err := budget.NewCounter(budget.O200kBase)
	require.NoError(t, err)
	reps := budget.RepeatedFields(plan.Resident(), c)
	require.NotEmpty(t, reps)
	var owner *budget.Repeat
	for i := range reps {
		for _, w := range reps[i].Where {
			if strings.HasSuffix(w, ".owner") && owner == nil {
				owner = &reps[i]
			}
		}
	}
	require.NotNil(t, owner, "github repeats the owner description")
	assert.Greater(t, owner.Count, 10)
	assert.False(t, owner.WastedTokens.Estimate)
	assert.Equal(t, c.Count(budget.KindProse, owner.Text).N*(owner.Count-1), owner.WastedTokens.N)
	t.Logf("top: %d× %q wastes %d chars, %s tokens", reps[0].Count, reps[0].Text, reps[0].WastedChars, reps[0].WastedTokens)
}

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three?", []string{"One.", "Two!", "Three?"}},
		{"v1.2 is out.\nNext line", []string{"v1.2 is out.", "Next line"}},
		{"  ", nil},
		{"e.g. this", []string{"e.g.", "this"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, budget.Sentences(tt.in), tt.in)
	}
}

func TestAdvise(t *testing.T) {
	big, small := sizedTool("Big", 4000), sizedTool("Small", 40)
	usedBig := sizedTool("UsedBig", 4000)
	tools := []*registry.Tool{small, big, usedBig}
	adv, err := budget.Advise(tools, map[string]int{"UsedBig": 100, "Small": 1}, &budget.AdviceOptions{Turns: 100, RoundTrip: 500})
	require.NoError(t, err)
	require.Len(t, adv, 3)
	assert.Equal(t, "Big", adv[0].Name, "large and unused: defer first")
	assert.True(t, adv[0].Defer)
	byName := map[string]budget.Advice{}
	for _, a := range adv {
		byName[a.Name] = a
		assert.Equal(t, a.Resident-a.Deferred, a.Saving)
		assert.True(t, a.Tokens.Estimate)
	}
	assert.False(t, byName["UsedBig"].Defer, "used on every turn: keep resident")
	assert.Equal(t, 100, byName["UsedBig"].Uses)

	for _, bad := range []struct {
		usage map[string]int
		opts  budget.AdviceOptions
	}{
		{map[string]int{"Big": -1}, budget.AdviceOptions{Turns: 10}},
		{map[string]int{"Big": 11}, budget.AdviceOptions{Turns: 10}},
		{nil, budget.AdviceOptions{}},
		{nil, budget.AdviceOptions{Turns: 1, RoundTrip: -1}},
	} {
		_, err := budget.Advise(tools, bad.usage, &bad.opts)
		assert.ErrorIs(t, err, budget.ErrAdvice, fmt.Sprint(bad))
	}
}

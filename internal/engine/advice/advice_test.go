package advice

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "..", "testdata"}, parts...)...)
}

// loadPlan imports catalogs into a fresh registry and plans with the
// default (resident) policy, every tier visible.
func loadPlan(t testing.TB, files ...string) *deferral.Plan {
	t.Helper()
	reg := registry.New(nil)
	for _, f := range files {
		c, err := registry.LoadCatalog(f)
		require.NoError(t, err)
		require.NoError(t, reg.Import(c))
	}
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	require.NoError(t, err)
	return plan
}

// sizedTool is a tool whose description has exactly n runes (schema "{}" adds 2).
func sizedTool(name string, n int) *registry.Tool {
	return &registry.Tool{Name: name, Description: strings.Repeat("x", n-2), RawSchema: []byte(`{}`)}
}

func TestBoilerplateHarness(t *testing.T) {
	plan := loadPlan(t, testdata("fixtures", "harness-catalog.json"))
	tools := append(plan.Resident(), plan.Deferred()...)
	reps := Boilerplate(tools, nil)
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
	plan := loadPlan(t, testdata("catalogs", "github.tools.json"))
	c, err := budget.NewCounter("o200k_base")
	require.NoError(t, err)
	reps := RepeatedFields(plan.Resident(), c)
	require.NotEmpty(t, reps)
	var owner *Repeat
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
		assert.Equal(t, tt.want, sentences(tt.in), tt.in)
	}
}

func TestAdvise(t *testing.T) {
	big, small := sizedTool("Big", 4000), sizedTool("Small", 40)
	usedBig := sizedTool("UsedBig", 4000)
	tools := []*registry.Tool{small, big, usedBig}
	adv, err := Advise(tools, map[string]int{"UsedBig": 100, "Small": 1}, &Options{Turns: 100, RoundTrip: 500})
	require.NoError(t, err)
	require.Len(t, adv, 3)
	assert.Equal(t, "Big", adv[0].Name, "large and unused: defer first")
	assert.True(t, adv[0].Defer)
	byName := map[string]Advice{}
	for _, a := range adv {
		byName[a.Name] = a
		assert.Equal(t, a.Resident-a.Deferred, a.Saving)
		assert.True(t, a.Tokens.Estimate)
	}
	assert.False(t, byName["UsedBig"].Defer, "used on every turn: keep resident")
	assert.Equal(t, 100, byName["UsedBig"].Uses)

	for _, bad := range []struct {
		usage map[string]int
		opts  Options
	}{
		{map[string]int{"Big": -1}, Options{Turns: 10}},
		{map[string]int{"Big": 11}, Options{Turns: 10}},
		{nil, Options{}},
		{nil, Options{Turns: 1, RoundTrip: -1}},
	} {
		_, err := Advise(tools, bad.usage, &bad.opts)
		assert.ErrorIs(t, err, ErrAdvice, fmt.Sprint(bad))
	}
}

package budget_test

import (
	"testing"

	"github.com/toolshelf/toolshelf/budget"
)

// benchSections is the harness fixture's 58 tools as sections: a realistic
// frozen prefix (~110,000 chars).
func benchSections(b *testing.B) []budget.Section {
	plan := loadPlan(b, nil, testdata("fixtures", "harness-catalog.json"))
	var s []budget.Section
	for _, t := range append(plan.Resident(), plan.Deferred()...) {
		s = append(s, budget.ToolSections(t, budget.ClassTool)...)
	}
	return s
}

// BenchmarkMeasureUncached tokenizes the prefix every time: the baseline.
func BenchmarkMeasureUncached(b *testing.B) {
	s := benchSections(b)
	for i := range s {
		s[i].Frozen = false
	}
	c, _ := budget.NewCounter(budget.O200kBase)
	c.Count(budget.KindProse, "warm up") // load the vocabulary outside the loop
	b.ReportAllocs()
	for b.Loop() {
		c.Measure(s)
	}
}

// BenchmarkMeasureCached measures the same frozen prefix again, as every
// turn after the first does.
func BenchmarkMeasureCached(b *testing.B) {
	s := benchSections(b)
	c, _ := budget.NewCounter(budget.O200kBase)
	c.Measure(s)
	b.ReportAllocs()
	for b.Loop() {
		c.Measure(s)
	}
}

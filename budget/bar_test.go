package budget_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/toolshelf/toolshelf/budget"
)

func TestBarRender(t *testing.T) {
	tests := []struct {
		name string
		bar  budget.Bar
		opts *budget.BarOptions
		want string
	}{
		{
			name: "measured fits",
			bar: budget.Bar{Window: 80000, Segments: []budget.Segment{
				{"system", budget.Tokens{N: 8000}}, {"tools", budget.Tokens{N: 60000}}, {"messages", budget.Tokens{N: 10000}}}},
			opts: &budget.BarOptions{Width: 10},
			want: "[█████████░] 78,000 / 80,000 tokens · 97% · free 2,000",
		},
		{
			name: "estimated segment drawn apart",
			bar: budget.Bar{Window: 100, Segments: []budget.Segment{
				{"system", budget.Tokens{N: 20}}, {"tools", budget.Tokens{N: 30, Estimate: true}}}},
			opts: &budget.BarOptions{Width: 10},
			want: "[██▒▒▒░░░░░] ~50 / 100 tokens · 50% · free ~50",
		},
		{
			name: "over budget, red",
			bar:  budget.Bar{Window: 100, Segments: []budget.Segment{{"tools", budget.Tokens{N: 150}}}},
			opts: &budget.BarOptions{Width: 4, Color: true},
			want: "\x1b[31m[████] 150 / 100 tokens · 150% · over budget by 50\x1b[0m",
		},
		{
			name: "over budget, plain",
			bar:  budget.Bar{Window: 100, Segments: []budget.Segment{{"tools", budget.Tokens{N: 150}}}},
			opts: &budget.BarOptions{Width: 4},
			want: "[████] 150 / 100 tokens · 150% · over budget by 50",
		},
		{
			name: "unknown window is never guessed",
			bar:  budget.Bar{Segments: []budget.Segment{{"tools", budget.Tokens{N: 1500, Estimate: true}}}},
			want: "~1,500 tokens · window unknown",
		},
		{
			name: "tiny segment still shows",
			bar:  budget.Bar{Window: 1000, Segments: []budget.Segment{{"system", budget.Tokens{N: 1}}}},
			opts: &budget.BarOptions{Width: 5},
			want: "[█░░░░] 1 / 1,000 tokens · 0% · free 999",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.bar.Render(tt.opts)
			assert.Equal(t, tt.want, got)
			if i := strings.IndexByte(got, ']'); i > 0 && tt.opts != nil {
				assert.Equal(t, tt.opts.Width, utf8.RuneCountInString(strings.TrimPrefix(strings.TrimPrefix(got[:i], "\x1b[31m"), "[")))
			}
		})
	}
}

func TestBarForMeasurement(t *testing.T) {
	c, _ := budget.NewCounter(budget.EncodingEstimate)
	m := c.Measure([]budget.Section{
		{Name: "system", Class: budget.ClassSystem, Text: strings.Repeat("a", 400)},
		{Name: "Read", Class: budget.ClassTool, Kind: budget.KindJSON, Text: strings.Repeat("b", 130)},
		{Name: "tool_search", Class: budget.ClassEntry, Text: strings.Repeat("c", 40)},
		{Name: "message 0", Class: budget.ClassMessage, Text: strings.Repeat("d", 8)},
	})
	b := budget.BarFor(m, budget.Tokens{}, 0)
	assert.Equal(t, "system ~100 · tools ~110 · messages ~2", b.Legend())
	_, known := b.Free()
	assert.False(t, known)
	assert.False(t, b.Over())
}

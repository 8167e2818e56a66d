package budget_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
)

func TestEncodingForModel(t *testing.T) {
	tests := []struct {
		model string
		enc   budget.Encoding
		exact bool
	}{
		{"gpt-4o", budget.O200kBase, true},
		{"gpt-4o-mini-2024-07-18", budget.O200kBase, true},
		{"openai/gpt-4.1", budget.O200kBase, true},
		{"gpt-5", budget.O200kBase, true},
		{"o1", budget.O200kBase, true},
		{"o3-mini", budget.O200kBase, true},
		{"o4-mini", budget.O200kBase, true},
		{"gpt-4", budget.Cl100kBase, true},
		{"gpt-4-turbo", budget.Cl100kBase, true},
		{"gpt-3.5-turbo", budget.Cl100kBase, true},
		{"claude-sonnet-4-5", budget.ClaudeEstimate, false},
		{"anthropic/claude-3-5-haiku", budget.ClaudeEstimate, false},
		{"gemini-2.5-pro", budget.EncodingEstimate, false},
		{"o10", budget.EncodingEstimate, false},
		{"", budget.EncodingEstimate, false},
	}
	for _, tt := range tests {
		enc, exact := budget.EncodingForModel(tt.model)
		assert.Equal(t, tt.enc, enc, tt.model)
		assert.Equal(t, tt.exact, exact, tt.model)
	}
}

func TestParseEncoding(t *testing.T) {
	for _, e := range budget.Encodings() {
		got, err := budget.ParseEncoding(string(e))
		require.NoError(t, err)
		assert.Equal(t, e, got)
	}
	_, err := budget.ParseEncoding("p50k")
	assert.ErrorIs(t, err, budget.ErrUnknownEncoding)
	assert.Contains(t, err.Error(), `"p50k"`)
	_, err = budget.NewCounter("nope")
	assert.ErrorIs(t, err, budget.ErrUnknownEncoding)
}

func TestCounterExactAndLazy(t *testing.T) {
	tests := []struct {
		enc  budget.Encoding
		text string
		want int
	}{
		{budget.O200kBase, "hello world", 2},
		{budget.Cl100kBase, "hello world", 2},
		{budget.O200kBase, "", 0},
	}
	for _, tt := range tests {
		c, err := budget.NewCounter(tt.enc)
		require.NoError(t, err)
		assert.False(t, c.Loaded(), "no vocabulary before the first count")
		got := c.Count(budget.KindProse, tt.text)
		assert.Equal(t, budget.Tokens{N: tt.want}, got)
		assert.True(t, c.Loaded())
		assert.True(t, c.Exact())
	}
}

func TestCounterEstimateIsMarked(t *testing.T) {
	c := budget.CounterForModel("gemini-2.5-pro")
	assert.False(t, c.Exact())
	assert.Equal(t, budget.Tokens{N: 3, Estimate: true}, c.Count(budget.KindProse, "twelve chars"))
	assert.Equal(t, budget.Tokens{N: 12, Estimate: true}, c.Count(budget.KindJSON, `{"a":"bcdefgh"}`)) // ceil(15 runes / 1.3)
	assert.Equal(t, "~3", c.Count(budget.KindProse, "twelve chars").String())
	assert.False(t, c.Loaded(), "an estimating counter loads nothing")
}

// TestCounterCachesFrozen measures two turns of a session: the second
// tokenizes only its new message.
func TestCounterCachesFrozen(t *testing.T) {
	c, _ := budget.NewCounter(budget.O200kBase)
	turn := []budget.Section{
		{Name: "system", Class: budget.ClassSystem, Text: "You are a careful assistant.", Frozen: true},
		{Name: "Read", Class: budget.ClassTool, Kind: budget.KindJSON, Text: `{"type":"object"}`, Frozen: true},
		{Name: "message 0", Class: budget.ClassMessage, Text: "hi", Frozen: true},
	}
	m1 := c.Measure(turn)
	_, misses := c.CacheStats()
	assert.Equal(t, 3, misses)
	turn2 := append(turn, budget.Section{Name: "message 1", Class: budget.ClassMessage, Text: "hello again", Frozen: true})
	m2 := c.Measure(turn2)
	hits, misses := c.CacheStats()
	assert.Equal(t, 3, hits)
	assert.Equal(t, 4, misses, "only the new message is tokenized")
	assert.Equal(t, m1.Total.Tokens.N+c.Count(budget.KindProse, "hello again").N, m2.Total.Tokens.N)
	// Unfrozen text is never cached.
	c.Measure([]budget.Section{{Name: "x", Text: "volatile"}})
	_, misses = c.CacheStats()
	assert.Equal(t, 4, misses)
}

func TestMeasureMergesToolRows(t *testing.T) {
	plan := loadPlan(t, nil, testdata("fixtures", "harness-catalog.json"))
	tool := plan.Resident()[0]
	c, _ := budget.NewCounter(budget.O200kBase)
	m := c.Measure(budget.ToolSections(tool, budget.ClassTool))
	require.Len(t, m.Rows, 1)
	assert.Equal(t, tool.Name, m.Rows[0].Name)
	assert.Equal(t, budget.ToolChars(tool)+len([]rune(tool.Name)), m.Total.Runes)
	assert.Equal(t, len(tool.Name)+len(tool.Description)+len(tool.ModelSchema()), m.Total.Bytes)
	assert.Equal(t, m.Total, m.ByClass(budget.ClassTool))
	assert.Zero(t, m.ByClass(budget.ClassMessage).Runes)
}

func TestCounterConcurrent(t *testing.T) {
	c, _ := budget.NewCounter(budget.O200kBase)
	want := c.Count(budget.KindProse, "concurrent counting")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Equal(t, want, c.CountFrozen(budget.KindProse, "concurrent counting"))
			c.CountFrozen(budget.KindProse, strings.Repeat("x", i))
		}()
	}
	wg.Wait()
}

package budget_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
)

// A counter shared by many sessions holds at most its bound, however many
// distinct texts pass through it (it used to keep every one forever: 37
// KiB per finished 50-turn session), and keeps the recently used ones.
func TestCounterCacheStaysWithinBound(t *testing.T) {
	const limit = 64 << 10
	c, err := budget.NewCounterCache(budget.O200kBase, limit)
	require.NoError(t, err)
	hot := "You are a careful assistant. " + strings.Repeat("Use tools when they help. ", 20)
	c.CountFrozen(budget.KindProse, hot)
	for i := range 2000 {
		text := fmt.Sprintf("message %d: %s", i, strings.Repeat("the build output says ", 40))
		c.CountFrozen(budget.KindProse, text)
		c.CountFrozen(budget.KindProse, hot) // used every turn: never the oldest
		held, bound := c.CacheBytes()
		require.Equal(t, limit, bound)
		require.LessOrEqual(t, held, limit, "after %d texts", i+1)
	}
	held, _ := c.CacheBytes()
	assert.Greater(t, held, limit/2, "the cache is used, not emptied")

	_, before := c.CacheStats()
	c.CountFrozen(budget.KindProse, hot)
	_, after := c.CacheStats()
	assert.Equal(t, before, after, "the text used every turn is still cached")
	c.CountFrozen(budget.KindProse, fmt.Sprintf("message %d: %s", 0, strings.Repeat("the build output says ", 40)))
	_, after = c.CacheStats()
	assert.Equal(t, before+1, after, "the oldest text was evicted")

	// A text larger than the bound is counted, not kept.
	big := strings.Repeat("x ", limit)
	want := c.Count(budget.KindProse, big)
	assert.Equal(t, want, c.CountFrozen(budget.KindProse, big))
	held, _ = c.CacheBytes()
	assert.LessOrEqual(t, held, limit)

	none, err := budget.NewCounterCache(budget.O200kBase, 0)
	require.NoError(t, err)
	assert.Equal(t, want, none.CountFrozen(budget.KindProse, big))
	held, _ = none.CacheBytes()
	assert.Zero(t, held)
	d, _ := budget.NewCounter(budget.O200kBase)
	_, bound := d.CacheBytes()
	assert.Equal(t, budget.DefaultCacheBytes, bound)
}

// Equal text at another address is found by content; the same string is
// found by identity. Both give the count of the first.
func TestCounterCacheIdentityAndContent(t *testing.T) {
	c, _ := budget.NewCounter(budget.O200kBase)
	a := strings.Repeat("tokens ", 100)
	b := string([]byte(a)) // equal content, another allocation
	first := c.CountFrozen(budget.KindProse, a)
	assert.Equal(t, first, c.CountFrozen(budget.KindProse, a))
	assert.Equal(t, first, c.CountFrozen(budget.KindProse, b))
	assert.Equal(t, c.Count(budget.KindProse, a[:50]), c.CountFrozen(budget.KindProse, a[:50]), "a prefix of a cached string is its own text")
	hits, misses := c.CacheStats()
	assert.Equal(t, 2, hits)
	assert.Equal(t, 2, misses)
}

// conversation is a 200-turn conversation as sections, one turn each.
func conversation() [][]budget.Section {
	var turns [][]budget.Section
	for i := range 200 {
		name := fmt.Sprintf("message %d", i)
		turns = append(turns, []budget.Section{
			{Name: name, Class: budget.ClassInjection, Text: "<system-reminder>clean tree</system-reminder>", Frozen: true},
			{Name: name, Class: budget.ClassMessage, Text: fmt.Sprintf("Question %d: %s", i, strings.Repeat("please explain the build output ", 6)), Frozen: true},
			{Name: name + " reply", Class: budget.ClassMessage, Kind: budget.KindJSON, Text: fmt.Sprintf(`{"file_path":"/src/file_%d.go"}`, i), Frozen: true},
		})
	}
	return turns
}

// A tally added to turn by turn ends where one Measure of the whole
// conversation ends, row for row.
func TestTallyMatchesMeasure(t *testing.T) {
	for _, enc := range []budget.Encoding{budget.O200kBase, budget.EncodingEstimate} {
		c, _ := budget.NewCounter(enc)
		tally := c.Tally()
		var all []budget.Section
		for _, turn := range conversation() {
			tally.Add(turn...)
			all = append(all, turn...)
		}
		want := c.Measure(all)
		got := tally.Measurement()
		assert.Equal(t, want, got, enc)
		assert.Equal(t, want.Total, tally.Total())
		got.Rows[0].Name = "changed"
		assert.NotEqual(t, "changed", tally.Measurement().Rows[0].Name, "Measurement returns a copy")
	}
}

// TestNewCounterCache sizes a counter's cache and reads it back; an
// unknown encoding is NewCounter's error.
func TestNewCounterCache(t *testing.T) {
	c, err := budget.NewCounterCache("o200k_base", 4096)
	require.NoError(t, err)
	held, limit := c.CacheBytes()
	assert.Equal(t, [2]int{0, 4096}, [2]int{held, limit})
	m := c.Measure([]budget.Section{{Name: "system", Text: "You are a helpful assistant.", Frozen: true}})
	assert.Positive(t, m.Total.Tokens.N)
	held, _ = c.CacheBytes()
	assert.Equal(t, len("You are a helpful assistant.")+128, held, "the frozen text is cached, with its overhead")

	_, err = budget.NewCounterCache("p50k", 4096)
	assert.ErrorContains(t, err, "unknown encoding")
}

package countercache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/internal/countercache"
)

// TestNew sizes a counter's cache through the hook budget registers, and
// reads it back; an unknown encoding is budget's error.
func TestNew(t *testing.T) {
	c, err := countercache.New[*budget.Counter]("o200k_base", 4096)
	require.NoError(t, err)
	require.NotNil(t, c)
	held, limit := countercache.Bytes(c)
	assert.Equal(t, [2]int{0, 4096}, [2]int{held, limit})
	m := c.Measure([]budget.Section{{Name: "system", Text: "You are a helpful assistant.", Frozen: true}})
	assert.Positive(t, m.Total.Tokens.N)
	held, _ = countercache.Bytes(c)
	assert.Equal(t, len("You are a helpful assistant.")+128, held, "the frozen text is cached, with its overhead")

	_, err = countercache.New[*budget.Counter]("p50k", 4096)
	assert.ErrorContains(t, err, "unknown encoding")
}

package gztext

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoundTrip: Gunzip reads back what Gzip wrote, the same text always
// gives the same bytes, and damaged input is an error, not a panic.
func TestRoundTrip(t *testing.T) {
	text := []byte("# header\nword\tother,words\n")
	gz, err := Gzip(text)
	require.NoError(t, err)
	again, err := Gzip(text)
	require.NoError(t, err)
	assert.Equal(t, gz, again, "deterministic: no name, no time in the header")
	got, err := Gunzip(gz, 0)
	require.NoError(t, err)
	assert.Equal(t, string(text), got)
	_, err = Gunzip([]byte("not gzip"), 10)
	assert.Error(t, err)
	_, err = Gunzip(gz[:len(gz)-4], 10)
	assert.Error(t, err, "truncated")
}

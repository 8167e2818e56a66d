package gztext

import (
	"errors"
	"fmt"
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

// TestLines: comment lines are counted but not yielded, line breaks are
// dropped, and a loop can stop early.
func TestLines(t *testing.T) {
	var got []string
	for n, line := range Lines("# header\na\tb\n# note\nc") {
		got = append(got, fmt.Sprintf("%d:%s", n, line))
	}
	assert.Equal(t, []string{"2:a\tb", "4:c"}, got)
	for range Lines("x\ny\n") {
		break
	}
}

// TestEmbedded: the table is parsed once, and a broken one panics with the
// package's name.
func TestEmbedded(t *testing.T) {
	calls := 0
	load := Embedded("pkg", []byte("x"), func(b []byte) (int, error) { calls++; return len(b), nil })
	assert.Equal(t, 1, load())
	assert.Equal(t, 1, load())
	assert.Equal(t, 1, calls)
	broken := Embedded("pkg", nil, func([]byte) (int, error) { return 0, errors.New("bad") })
	assert.PanicsWithValue(t, "pkg: embedded data: bad", func() { broken() })
}

package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSelfBuilt(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, run(&buf))
	out := buf.String()

	var again bytes.Buffer
	require.NoError(t, run(&again))
	assert.Equal(t, out, again.String(), "output is deterministic")

	for _, want := range []string{
		// Bad tools the model writes are refused with a reason it can act on.
		`register "word count!": rejected: registry: invalid name`,
		`register "word_count": rejected: registry: invalid input schema`,
		`register "word_count": ok (deferred: true)`,
		// Registering does not touch the cached prefix.
		"identical to request 1: true",
		// The announcement carries the description as text, never a template.
		"<new_deferred_tool> word_count: Count the words of a text, e.g. a draft by {{.user}}.",
		// Found by what it does, loaded, validated, called.
		"Loaded 1 tool",
		"## word_count",
		"/txt: unknown property",
		"→ {\"words\":4}",
		// Per session: another session never sees it.
		"other session sees word_count: false; same prefix bytes: true",
	} {
		assert.Contains(t, out, want)
	}
	assert.Regexp(t, `other session: defer_execute word_count\n  → error: Unknown tool "word_count"`, out)
}

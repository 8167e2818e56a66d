package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHookCommand: a Hook line runs a command before each call of the
// tools it selects, with the call as JSON on stdin: exit 0 lets the call
// run, another status blocks it with the command's stderr as the reason.
func TestHookCommand(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "guard.sh")
	log := filepath.Join(dir, "calls.jsonl")
	require.NoError(t, os.WriteFile(script, []byte(`#!/bin/sh
in=$(cat)
echo "$in" >> `+log+`
case "$in" in
  *Mordor*) echo "no weather for Mordor: pick another city" >&2; exit 2 ;;
esac
exit 0
`), 0o755))
	alpha, beta := twoServers()
	g := testGateway(t, baseRules+"Hook(mcp__beta__*) "+script+"\n", alpha.server("alpha"), beta.server("beta"))
	cs := client(t, g, "", nil)
	call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__beta__weather"}})
	text, isErr := call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__beta__weather", "params": map[string]any{"city": "Oslo"}})
	require.False(t, isErr, text)
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__beta__weather", "params": map[string]any{"city": "Mordor"}})
	assert.True(t, isErr)
	assert.Contains(t, text, "no weather for Mordor: pick another city")
	assert.Equal(t, []string{"weather"}, beta.called(), "the blocked call never reached the server")
	text, isErr = call(t, cs, "mcp__beta__status", map[string]any{})
	require.False(t, isErr, text)
	calls := readFile(t, log)
	assert.Contains(t, calls, `"tool":"mcp__beta__weather","via":"defer_execute","params":{"city":"Oslo"}`)
	assert.Contains(t, calls, `"tool":"mcp__beta__status"`)
	assert.NotContains(t, calls, "alpha", "the pattern selects beta's tools only")
}

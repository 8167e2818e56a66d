package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTraceAndSavings: every search and call is an OpenTelemetry span in
// the trace file (the target's name on a defer_execute call, the decision
// as an event, the loaded schema as a child span), and a client session
// that ends leaves its savings account.
func TestTraceAndSavings(t *testing.T) {
	var buf bytes.Buffer
	obs, shutdown, err := traceObserver(&buf)
	require.NoError(t, err)
	alpha, beta := twoServers()
	g := testGatewayWith(t, baseRules, gatewayOptions{observer: obs}, alpha.server("alpha"), beta.server("beta"))
	cs := client(t, g, "", nil)
	listNames(t, cs)
	listNames(t, cs) // from the client's cache: the list's TTL says it holds
	call(t, cs, "tool_search", map[string]any{"queries": []string{"weather for a city"}})
	call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__beta__weather", "params": map[string]any{"city": "Oslo"}})
	call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__alpha__wipe", "params": map[string]any{}})
	require.NoError(t, cs.Close())
	require.NoError(t, shutdown(context.Background()))

	var spans []spanLine
	for sc := bufio.NewScanner(&buf); sc.Scan(); {
		var l spanLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		spans = append(spans, l)
	}
	byName := map[string]spanLine{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	search, ok := byName["tool_search"]
	require.True(t, ok, "a span per search: %v", spans)
	assert.Contains(t, search.Attributes["toolshelf.search.loaded"], "mcp__beta__weather")
	callSpan, ok := byName["execute_tool mcp__beta__weather"]
	require.True(t, ok, "a span per call, named by its target")
	assert.Equal(t, "defer_execute", callSpan.Attributes["toolshelf.via"])
	assert.Equal(t, "completed", callSpan.Attributes["toolshelf.outcome"])
	load, ok := byName["load_tool mcp__beta__weather"]
	require.True(t, ok)
	assert.Equal(t, search.SpanID, load.Parent)
	_, denied := byName["execute_tool mcp__alpha__wipe"]
	assert.True(t, denied, "a denied call is traced too")

	eventually(t, "the session's savings", func() bool {
		g.accMu.Lock()
		defer g.accMu.Unlock()
		return len(g.accounts) == 1
	})
	a := g.accounts[0]
	assert.Equal(t, "test", a.Client)
	assert.Equal(t, 1, a.Lists, "the second list came from the client's cache")
	assert.Equal(t, 1, a.Loaded)
	assert.Greater(t, a.AllResidentChars, 0)
	assert.Equal(t, a.AllResidentChars-a.GatewayChars, a.SavedPerList, "five small tools: the entry tools cost more than they defer")
	assert.Less(t, a.SavedPerList, 0)
	assert.Equal(t, a.SavedPerList, a.Saved)
}

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// regional is one region's server: the same two tools everywhere.
func regional() *upstream {
	return newUpstream(
		tool("get_pods", "List the pods of a namespace.", `{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}`),
		tool("restart", "Restart a deployment.", `{"type":"object","properties":{"deployment":{"type":"string"}},"required":["deployment"]}`),
	)
}

// TestTwinsFolded: three servers with one tool set are offered once, with a
// required target naming the server; a call reaches the server it names
// and no other; a target outside the set is refused by validation; a
// server whose tools differ is served apart.
func TestTwinsFolded(t *testing.T) {
	eu, us, ap := regional(), regional(), regional()
	odd := newUpstream(tool("get_pods", "List the pods (another version).", msgSchema))
	g := testGateway(t, "Twins(k8s: eu, us, ap)\nTwins(mixed: eu2, odd)\n",
		eu.server("eu"), us.server("us"), ap.server("ap"), regional().server("eu2"), odd.server("odd"))
	cs := client(t, g, "", nil)
	idx := searchDescription(t, cs)
	assert.Contains(t, idx, "mcp__k8s:")
	assert.NotContains(t, idx, "mcp__eu:")
	assert.NotContains(t, idx, "mcp__us:")
	assert.Contains(t, idx, "mcp__eu2:", "twins that differ are served apart")
	assert.Contains(t, idx, "mcp__odd:")

	text, isErr := call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__k8s__get_pods"}})
	require.False(t, isErr, text)
	assert.Contains(t, text, `target (string, one of "ap", "eu", "us", required)`)
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__k8s__get_pods", "params": map[string]any{"namespace": "web", "target": "us"}})
	require.False(t, isErr, text)
	assert.Equal(t, `get_pods: {"namespace":"web"}`, text)
	assert.Equal(t, []string{"get_pods"}, us.called())
	assert.Empty(t, eu.called())
	assert.Empty(t, ap.called())

	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__k8s__get_pods", "params": map[string]any{"namespace": "web", "target": "mars"}})
	assert.True(t, isErr, text)
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__k8s__get_pods", "params": map[string]any{"namespace": "web"}})
	assert.True(t, isErr, text)
	assert.Contains(t, text, "target")
	assert.Equal(t, []string{"get_pods"}, us.called())
	assert.Contains(t, g.explain(mustProfile(t, g, ""), "mcp__eu__restart"), `listed folded: as mcp__k8s__restart with target "eu"`)
}

package request

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// TestSuggestionsReadTheView: issue 43 — after an accepted change made a
// tool destructive under Deny(@destructive), calling it answered `Unknown
// tool "mcp__late__report". Did you mean "mcp__late__report"?`: the
// suggestion offered the very name the view refuses, a retry loop for the
// model and an oracle for the name. "Did you mean" offers only names the
// model may call now, never the name it just used.
func TestSuggestionsReadTheView(t *testing.T) {
	reg := liveRegistry(t)
	no, yes := false, true // trusted: the rules read them (untrusted, a tool counts as destructive)
	report := mcpTool("report", "Write a report.", echoSchema)
	reports := mcpTool("reports", "List the reports.", echoSchema)
	report.Annotations = &registry.Annotations{DestructiveHint: &no}
	reports.Annotations = &registry.Annotations{DestructiveHint: &no}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late", TrustAnnotations: true}, []registry.Tool{report, reports}))
	d, err := execute.New(&execute.Options{Permissions: []execute.Permission{{Action: execute.Deny, Pattern: "@destructive"}}})
	require.NoError(t, err)
	cfg := testConfig(reg.Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.Dispatcher, cfg.ToolSearch = d, Portable
	s, err := NewSession(cfg)
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
	require.NoError(t, err)
	ctx := context.Background()
	r := s.Call(ctx, "mcp__late__reprt", json.RawMessage(`{}`))
	require.Contains(t, r.Text, `Did you mean "mcp__late__report", "mcp__late__reports"?`, "both callable before the change")

	report.Annotations = &registry.Annotations{DestructiveHint: &yes}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late", TrustAnnotations: true}, []registry.Tool{report, reports}))
	_, err = s.Sync(ctx, reg.Snapshot())
	require.NoError(t, err)
	for _, p := range s.PendingChanges() { // a narrowing may apply at once
		require.NoError(t, s.ApproveChange(p.Tool, p.NewSHA256))
	}

	for _, call := range []struct{ name, args string }{
		{"mcp__late__report", `{"text":"x"}`},
		{registry.DeferExecuteName, `{"tool_name":"mcp__late__report","params":{"text":"x"}}`},
	} {
		r := s.Call(ctx, call.name, json.RawMessage(call.args))
		require.True(t, r.IsError)
		assert.Contains(t, r.Text, `Unknown tool "mcp__late__report"`)
		assert.NotContains(t, r.Text, `mean "mcp__late__report"`, "the denied name is not offered back")
		assert.NotContains(t, r.Text, `, "mcp__late__report"`)
		assert.Contains(t, r.Text, `Did you mean "mcp__late__reports"?`, "what the model may call is offered")
	}
	r = s.Call(ctx, "mcp__late__reprts", json.RawMessage(`{}`))
	assert.Contains(t, r.Text, `Did you mean "mcp__late__reports"?`, "a misspelling is offered the callable tool only")
}

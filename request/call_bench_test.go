package request

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// BenchmarkSessionCall: allocations of one Session.Call through the
// dispatcher — a resident tool called directly, a loaded deferred tool
// through defer_execute, a tool_search by name — in a session with an
// arrived server and a self-built tool (the view's entries), and an
// unknown name ("did you mean").
func BenchmarkSessionCall(b *testing.B) {
	reg := liveRegistry(b)
	f := newLiveFixture(b, reg, Anthropic, func(c *Config) { c.SelfBuilt = true })
	require.NoError(b, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("sum", "Add two numbers.", sumSchema)}))
	_, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(b, err)
	require.NoError(b, f.s.RegisterSelfBuilt(registry.Tool{Name: "count_lines", Description: "Count lines.", RawSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "1"}, nil
		}}))
	f.search(b, `{"tool_names":["mcp__files__stat","mcp__late__sum"]}`)
	ctx := context.Background()
	for _, c := range []struct{ name, tool, args string }{
		{"resident", "Read", `{"path":"/"}`},
		{"deferred", registry.DeferExecuteName, `{"tool_name":"mcp__files__stat","params":{"path":"/"}}`},
		{"arrived", registry.DeferExecuteName, `{"tool_name":"mcp__late__sum","params":{"a":1,"b":2}}`},
		{"search", registry.ToolSearchName, `{"tool_names":["mcp__files__list_dir"]}`},
		{"unknown", registry.DeferExecuteName, `{"tool_name":"mcp__files__sta","params":{}}`},
	} {
		args := json.RawMessage(c.args)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.s.Call(ctx, c.tool, args)
			}
		})
	}
}

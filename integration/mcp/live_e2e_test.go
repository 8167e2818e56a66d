package mcp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// TestLateNPMServer: a session starts with only a built-in tool; the real
// everything server (npm) starts 2 s later. The session follows the
// Manager: its tools arrive deferred, tool_search finds echo and
// defer_execute calls it in the same session, and the prefix is
// byte-identical on every request, on every provider.
func TestLateNPMServer(t *testing.T) {
	argv := npmServer(t, "mcp-server-everything", "stdio")
	ctx := e2eCtx(t)
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file."}))
	m := newManager(t, reg, nil)
	providers := []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic}
	hs := make([]*liveHarness, len(providers))
	prefixes := make([]string, len(providers))
	for i, p := range providers {
		hs[i] = newLiveHarness(t, reg, m, p)
		prefixes[i] = string(hs[i].s.Prefix())
		hs[i].turn(user("Echo 'hello from toolshelf' with the echo tool."))
		assert.Contains(t, hs[i].search(`{"queries":["echo a message"]}`), "Nothing matched")
	}

	start := time.Now()
	time.Sleep(2 * time.Second) // the server starts after the sessions
	require.NoError(t, m.Start(Server{Name: "everything", Command: argv}))
	require.NoError(t, m.Wait(ctx, "everything"))
	t.Logf("server ready %v after the sessions started", time.Since(start).Round(time.Millisecond))

	for i, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			h := hs[i]
			h.t = t
			found := h.search(`{"queries":["echo a message back"]}`)
			require.Contains(t, found, "mcp__everything__echo")
			body := h.turn(
				request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "c1", Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"queries":["echo a message back"]}`)}}},
				request.Message{Role: request.RoleTool, CallID: "c1", Text: found})
			assert.Contains(t, body, "mcp__everything__echo (new from MCP server everything)")
			r := h.exec("mcp__everything__echo", `{"message":"hello from toolshelf"}`)
			require.False(t, r.IsError, r.Text)
			assert.Equal(t, "Echo: hello from toolshelf", r.Text, "the server's real answer")
			h.turn(
				request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "c2", Name: registry.DeferExecuteName, Arguments: json.RawMessage(`{"tool_name":"mcp__everything__echo","params":{"message":"hello from toolshelf"}}`)}}},
				request.Message{Role: request.RoleTool, CallID: "c2", Text: r.Text})
			assert.Equal(t, prefixes[i], string(h.s.Prefix()))
		})
	}
}

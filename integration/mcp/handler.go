package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolshelf/toolshelf/registry"
)

// handler returns the registry handler of tool on server: it forwards the
// validated arguments to the server's tools/call. Every failure is a
// model-facing result, never a Go error: a lost server must not end the turn.
func (m *Manager) handler(server, tool string) registry.Handler {
	return func(ctx context.Context, params json.RawMessage) (registry.Result, error) {
		cs, state := m.session(server)
		if cs == nil {
			m.kick(server)
			return unavailable(server, tool, state), nil
		}
		args := params
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err == nil {
			return registry.Result{Text: resultText(res), IsError: res.IsError}, nil
		}
		if ctx.Err() != nil {
			return registry.Result{
				Text:    fmt.Sprintf("The call of %s on MCP server %q was cancelled before it answered (%v). Call it again if you still need the result.", tool, server, ctx.Err()),
				IsError: true,
			}, nil
		}
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			// The server is alive and answered with a protocol error.
			return registry.Result{
				Text:    fmt.Sprintf("MCP server %q rejected the call of %s: %s (code %d). Check the arguments against the tool's schema and call it again.", server, tool, werr.Message, werr.Code),
				IsError: true,
			}, nil
		}
		m.lost(server, cs, err)
		m.kick(server)
		return unavailable(server, tool, stateUnavailable), nil
	}
}

// unavailable is the model-facing answer of a call on a server that is not
// connected. The tool's name stays in the index; the model may retry.
func unavailable(server, tool string, state connState) registry.Result {
	why := "it is disconnected"
	if state == stateConnecting {
		why = "it is still connecting"
	}
	return registry.Result{
		Text:    fmt.Sprintf("server %s unavailable, retry later: %s was not called because %s. Try the same call again in a moment, or use another tool meanwhile.", server, tool, why),
		IsError: true,
	}
}

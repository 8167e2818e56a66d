package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/request"
)

// listTTL is the cache hint on tools/list results: the list a session is
// served never changes, so a client may keep it for the whole session.
const listTTL = 24 * time.Hour

// askKey carries a call's downstream session to the approver.
type askKey struct{}

// askState is one call's link to the client that made it.
type askState struct {
	ss *sdk.ServerSession
	// refused is set when an Ask rule matched and the client cannot be
	// asked: the text the call's result adds, saying what to do.
	refused string
}

// server returns the MCP server one downstream client session talks to:
// the session's frozen tools (tool_search, defer_execute, and the
// resident ones), each call run by the session — tool_search's search, the
// loaded set, and defer_execute's validation, permission rules and hooks.
// done is called when the client session ends.
func (g *gateway) server(p *profile) (*sdk.Server, error) {
	s, err := g.newSession(p, g.approve)
	if err != nil {
		return nil, err
	}
	stop := g.follow(s)
	srv := sdk.NewServer(&sdk.Implementation{Name: "toolshelf-gateway", Version: version}, &sdk.ServerOptions{
		Instructions: g.instructions(p),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		SetCacheable: func(_ context.Context, req sdk.Request, c *sdk.Cacheable) {
			if _, ok := req.(*sdk.ListToolsRequest); ok {
				c.TTLMs, c.CacheScope = int(listTTL/time.Millisecond), "private"
			}
		},
		InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
			go func() {
				_ = req.Session.Wait()
				stop()
			}()
		},
	})
	for _, t := range s.Frozen().Tools {
		srv.AddTool(&sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(t.Schema)}, callHandler(s, t.Name))
	}
	return srv, nil
}

// callHandler runs a call of name through s.
func callHandler(s *request.Session, name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		a := &askState{ss: req.Session}
		ctx = context.WithValue(ctx, askKey{}, a)
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		r := s.Call(ctx, name, args)
		text := r.Text
		if a.refused != "" {
			text += "\n\n" + a.refused
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: r.IsError}, nil
	}
}

// errNoElicitation is the approver's answer when the client cannot be asked.
var errNoElicitation = errors.New("the MCP client does not support elicitation")

// approve decides a call an Ask rule matched by asking the user through MCP
// elicitation (a yes/no form). A client without elicitation is refused,
// and the call's result says how to allow the tool instead.
func (g *gateway) approve(ctx context.Context, req execute.AskRequest) (bool, error) {
	a, _ := ctx.Value(askKey{}).(*askState)
	if a == nil || a.ss == nil {
		return false, errNoElicitation
	}
	ip := a.ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		a.refused = fmt.Sprintf("The gateway's rule %s asks the user before each call of %s, and this MCP client cannot ask (it does not support elicitation). Tell the user; they can allow the tool with Allow(%s) in the gateway's rules file, or use a client that supports elicitation.", req.Rule, req.Tool, req.Tool)
		return false, errNoElicitation
	}
	msg := fmt.Sprintf("Allow the call of %s with %s? (rule %s)", req.Tool, clip(string(req.Params), 500), req.Rule)
	res, err := a.ss.Elicit(ctx, &sdk.ElicitParams{
		Message: msg,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"approve": map[string]any{"type": "boolean", "title": "Allow this call"}},
			"required":   []string{"approve"},
		},
	})
	if err != nil {
		return false, err
	}
	ok, _ := res.Content["approve"].(bool)
	return res.Action == "accept" && ok, nil
}

// instructions tells the client what the gateway serves, and which servers
// are unavailable and why.
func (g *gateway) instructions(p *profile) string {
	var b strings.Builder
	b.WriteString("toolshelf-gateway: every tool of the servers behind it is found with tool_search and called with defer_execute.")
	if p.name != "" {
		fmt.Fprintf(&b, " Profile %s.", p.name)
	}
	for _, n := range g.m.Servers() {
		if !p.serves(n) {
			continue
		}
		if why := g.why(n); why != "" {
			fmt.Fprintf(&b, "\nServer %s is unavailable: %s", n, why)
		}
	}
	return b.String()
}

// httpHandler serves streamable HTTP: /mcp is the default profile,
// /mcp/NAME the profile NAME.
func (g *gateway) httpHandler() http.Handler {
	mux := http.NewServeMux()
	h := func(name string) http.Handler {
		return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
			p, err := g.rules.profile(name)
			if err != nil {
				return nil
			}
			srv, err := g.server(p)
			if err != nil {
				g.logf("new session: %v", err)
				return nil
			}
			return srv
		}, nil)
	}
	mux.Handle("/mcp", h(""))
	for _, n := range g.rules.names() {
		mux.Handle("/mcp/"+n, h(n))
	}
	return mux
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/request"
)

// listTTL is the cache hint on tools/list results: the list a session is
// served never changes, so a client may keep it for the whole session.
const listTTL = 24 * time.Hour

// server returns the MCP server one downstream client session talks to:
// the session's frozen tools (tool_search, defer_execute, and the
// resident ones), each call run by the session — tool_search's search, the
// loaded set, and defer_execute's validation, permission rules and hooks.
// The session stops following the servers when the client session ends.
func (g *gateway) server(p *profile) (*sdk.Server, error) {
	s, sid, err := g.newSession(p, g.approve)
	if err != nil {
		return nil, err
	}
	stop := g.follow(s)
	srv := g.mcpServer(p, s, sid, nil)
	// The session stops following when its client session ends: the first
	// request names the client session (a client of protocol 2026-07-28
	// sends no notifications/initialized to wait on). Its savings are
	// logged then.
	var once sync.Once
	var lists atomic.Int64
	var client atomic.Value
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
				if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
					client.Store(ip.ClientInfo.Name)
				}
				once.Do(func() {
					go func() {
						_ = ss.Wait()
						stop()
						name, _ := client.Load().(string)
						g.recordSavings(s, sid, name, p.name, int(lists.Load()))
					}()
				})
			}
			return next(ctx, method, req)
		}
	})
	return srv, nil
}

// recordSavings logs a session's savings account and keeps the last 100.
func (g *gateway) recordSavings(s *request.Session, sid, client, profile string, lists int) {
	a, err := account(s, sid, client, profile, lists)
	if err != nil {
		g.logf("session %s: savings: %v", sid, err)
		return
	}
	b, _ := json.Marshal(a)
	g.logf("savings %s", b)
	g.accMu.Lock()
	defer g.accMu.Unlock()
	g.accounts = append(g.accounts, a)
	if len(g.accounts) > 100 {
		g.accounts = g.accounts[len(g.accounts)-100:]
	}
}

// mcpServer returns the MCP server of session s (whose ID is sid): its
// frozen tools, each call run by s; after, when set, runs after each call
// (a stored session commits there).
func (g *gateway) mcpServer(p *profile, s *request.Session, sid string, after func(context.Context)) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "toolshelf-gateway", Version: version}, &sdk.ServerOptions{
		Instructions: g.instructions(p),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		SetCacheable: func(_ context.Context, req sdk.Request, c *sdk.Cacheable) {
			if _, ok := req.(*sdk.ListToolsRequest); ok {
				c.TTLMs, c.CacheScope = int(listTTL/time.Millisecond), "private"
			}
		},
	})
	for _, t := range s.Frozen().Tools {
		srv.AddTool(&sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(t.Schema)}, g.callHandler(s, sid, t.Name, after))
	}
	return srv
}

// askKey carries a call's link to its client to the approver.
type askKey struct{}

// askID is the one input request a call asks: the user's yes or no.
const askID = "approve"

// askState is one call's link to the client that made it. MCP asks the
// user in two round trips (multi round-trip requests, SEP-2322; the go-sdk
// turns them into a direct elicitation/create for clients on older
// protocol versions): the first run of the call finds no answer and
// returns the question, the client asks the user and calls again with the
// answer, and the second run's approver reads it.
type askState struct {
	canAsk bool
	// answer is the user's answer from the retried call, if any.
	answer *sdk.ElicitResult
	// need is the question the first run returns.
	need *sdk.ElicitParams
	// refused is set when an Ask rule matched and the client cannot be
	// asked: the text the call's result adds, saying what to do.
	refused string
}

// callHandler runs a call of name through s.
func (g *gateway) callHandler(s *request.Session, sid, name string, after func(context.Context)) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		a := &askState{canAsk: canElicit(req.ClientCapabilities())}
		state := g.askToken(sid, name, args)
		if req.Params != nil && req.Params.RequestState == state {
			a.answer, _ = req.Params.InputResponses[askID].(*sdk.ElicitResult)
		}
		r := s.Call(context.WithValue(ctx, askKey{}, a), name, args)
		if after != nil {
			after(ctx)
		}
		if a.need != nil {
			// Nothing ran: the approver said no until the user answers.
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{askID: a.need}, RequestState: state}, nil
		}
		text := r.Text
		if a.refused != "" {
			text += "\n\n" + a.refused
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: r.IsError}, nil
	}
}

// askToken binds a user's answer to one call: the session, the tool and
// the arguments, keyed by the gateway's secret (random per process unless
// set), so that an answer the client sends back cannot approve another
// call.
func (g *gateway) askToken(sid, name string, args json.RawMessage) string {
	h := hmac.New(sha256.New, g.askKey)
	fmt.Fprintf(h, "%s\x00%s\x00", sid, name)
	h.Write(args)
	return hex.EncodeToString(h.Sum(nil))
}

func canElicit(c *sdk.ClientCapabilities) bool {
	return c != nil && c.Elicitation != nil && (c.Elicitation.Form != nil || c.Elicitation.URL == nil)
}

// errAwaitingUser and errNoElicitation are the approver's reasons for a no
// that is not the user's.
var (
	errAwaitingUser  = errors.New("waiting for the user's answer")
	errNoElicitation = errors.New("the MCP client does not support elicitation")
)

// approve decides a call an Ask rule matched: with the user's answer when
// the call carries one, else by asking the user through MCP elicitation (a
// yes/no form). A client without elicitation is refused, and the call's
// result says how to allow the tool instead.
func (g *gateway) approve(ctx context.Context, req execute.AskRequest) (bool, error) {
	a, _ := ctx.Value(askKey{}).(*askState)
	switch {
	case a == nil:
		return false, errNoElicitation
	case a.answer != nil:
		yes, _ := a.answer.Content[askID].(bool)
		yes = yes && a.answer.Action == "accept"
		a.answer = nil
		return yes, nil
	case !a.canAsk:
		a.refused = fmt.Sprintf("The gateway's rule %s asks the user before each call of %s, and this MCP client cannot ask (it does not support elicitation). Tell the user; they can allow the tool with Allow(%s) in the gateway's rules file, or use a client that supports elicitation.", req.Rule, req.Tool, req.Tool)
		return false, errNoElicitation
	}
	a.need = &sdk.ElicitParams{
		Message: fmt.Sprintf("Allow the call of %s with %s? (rule %s)", req.Tool, clip(string(req.Params), 500), req.Rule),
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{askID: map[string]any{"type": "boolean", "title": "Allow this call"}},
			"required":   []string{askID},
		},
	}
	return false, errAwaitingUser
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
	if g.store != nil {
		h = g.storeHandler
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

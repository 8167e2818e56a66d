package main

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func twoServers() (*upstream, *upstream) {
	alpha := newUpstream(
		tool("echo", "Echo the message back.", msgSchema),
		tool("wipe", "Delete every record of the store.", `{"type":"object","properties":{}}`),
		tool("transfer", "Transfer money between accounts.", `{"type":"object","properties":{"amount":{"type":"integer","minimum":1}},"required":["amount"]}`),
	)
	beta := newUpstream(
		tool("weather", "Current weather for a city.", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		tool("status", "Resident status line.", `{"type":"object","properties":{}}`),
	)
	return alpha, beta
}

const baseRules = `# test rules
Deny(mcp__alpha__wipe)
Ask(mcp__alpha__transfer)
NoDefer(mcp__beta__status)
`

// TestListConstant: the client is served tool_search, defer_execute and the
// resident tool only; the index names every listed tool under its server;
// a denied tool is absent from the index; the list carries a long cache TTL.
func TestListConstant(t *testing.T) {
	alpha, beta := twoServers()
	g := testGateway(t, baseRules, alpha.server("alpha"), beta.server("beta"))
	cs := client(t, g, "", nil)
	names, res := listNames(t, cs)
	assert.Equal(t, []string{"defer_execute", "mcp__beta__status", "tool_search"}, names)
	assert.Greater(t, res.TTLMs, 3600*1000)
	idx := searchDescription(t, cs)
	assert.Contains(t, idx, "mcp__alpha:")
	assert.Contains(t, idx, "\n  echo")
	assert.Contains(t, idx, "\n  transfer")
	assert.Contains(t, idx, "mcp__beta:")
	assert.Contains(t, idx, "\n  weather")
	assert.NotContains(t, idx, "wipe", "a denied tool is absent from the index")
	names2, _ := listNames(t, cs)
	assert.Equal(t, names, names2)
}

// TestSearchLoadCall: tool_search loads a schema, defer_execute calls the
// upstream tool through validation; a call that fails validation never
// reaches the server; the resident tool is called directly.
func TestSearchLoadCall(t *testing.T) {
	alpha, beta := twoServers()
	g := testGateway(t, baseRules, alpha.server("alpha"), beta.server("beta"))
	cs := client(t, g, "", nil)
	text, isErr := call(t, cs, "tool_search", map[string]any{"queries": []string{"weather city"}})
	require.False(t, isErr, text)
	assert.Contains(t, text, "mcp__beta__weather")
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__beta__weather", "params": map[string]any{"city": "Oslo"}})
	require.False(t, isErr, text)
	assert.Equal(t, `weather: {"city":"Oslo"}`, text)
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__beta__weather", "params": map[string]any{"town": "Oslo"}})
	assert.True(t, isErr)
	assert.Contains(t, text, "city")
	text, isErr = call(t, cs, "mcp__beta__status", map[string]any{})
	require.False(t, isErr, text)
	assert.Equal(t, `status: {}`, text)
	assert.Equal(t, []string{"weather", "status"}, beta.called())
}

// TestDeny: a denied tool is not found by search and not callable, and its
// server is never called.
func TestDeny(t *testing.T) {
	alpha, beta := twoServers()
	g := testGateway(t, baseRules, alpha.server("alpha"), beta.server("beta"))
	cs := client(t, g, "", nil)
	text, _ := call(t, cs, "tool_search", map[string]any{"queries": []string{"delete every record store"}})
	assert.NotContains(t, text, "wipe")
	text, _ = call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__alpha__wipe"}})
	assert.NotContains(t, text, "Delete every record")
	text, isErr := call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__alpha__wipe", "params": map[string]any{}})
	assert.True(t, isErr, text)
	assert.Empty(t, alpha.called())
}

// TestAsk: an Ask rule asks the user through elicitation — yes runs the
// call, no does not — and a client without elicitation is refused with a
// text that says how to allow the tool.
func TestAsk(t *testing.T) {
	alpha, beta := twoServers()
	g := testGateway(t, baseRules, alpha.server("alpha"), beta.server("beta"))
	var asked []string
	answer := true
	elicit := func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": answer}}, nil
	}
	transfer := map[string]any{"tool_name": "mcp__alpha__transfer", "params": map[string]any{"amount": 5}}
	cs := client(t, g, "", elicit)
	call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__alpha__transfer"}})
	text, isErr := call(t, cs, "defer_execute", transfer)
	require.False(t, isErr, text)
	assert.Equal(t, `transfer: {"amount":5}`, text)
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], "mcp__alpha__transfer")
	assert.Contains(t, asked[0], `{"amount":5}`)

	answer = false
	text, isErr = call(t, cs, "defer_execute", transfer)
	assert.True(t, isErr)
	assert.NotContains(t, text, "elicitation")
	assert.Len(t, asked, 2)

	mute := client(t, g, "", nil)
	call(t, mute, "tool_search", map[string]any{"tool_names": []string{"mcp__alpha__transfer"}})
	text, isErr = call(t, mute, "defer_execute", transfer)
	assert.True(t, isErr)
	assert.Contains(t, text, "does not support elicitation")
	assert.Contains(t, text, "Allow(mcp__alpha__transfer)")
	assert.Equal(t, []string{"transfer"}, alpha.called())
}

// TestProfile: a profile serves its servers only, with its own rules on top
// of the file's.
func TestProfile(t *testing.T) {
	alpha, beta := twoServers()
	g := testGateway(t, baseRules+"\n[profile weather]\nServers(beta)\nDeny(mcp__beta__status)\n", alpha.server("alpha"), beta.server("beta"))
	cs := client(t, g, "weather", nil)
	names, _ := listNames(t, cs)
	assert.Equal(t, []string{"defer_execute", "tool_search"}, names, "the profile denies the resident tool")
	idx := searchDescription(t, cs)
	assert.NotContains(t, idx, "mcp__alpha")
	assert.Contains(t, idx, "weather")
	text, isErr := call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__alpha__echo", "params": map[string]any{"message": "x"}})
	assert.True(t, isErr, text)
	assert.Empty(t, alpha.called())
	assert.Contains(t, g.explain(mustProfile(t, g, "weather"), "mcp__alpha__echo"), "profile weather serves only beta")
	_, err := g.rules.profile("nope")
	assert.ErrorContains(t, err, `unknown profile "nope"`)
}

func mustProfile(t *testing.T, g *gateway, name string) *profile {
	p, err := g.rules.profile(name)
	require.NoError(t, err)
	return p
}

// TestExplain says why a tool is not listed.
func TestExplain(t *testing.T) {
	alpha, beta := twoServers()
	g := testGateway(t, baseRules+"Mode(mcp__alpha__*)\nMode(mcp__beta__status)\n", alpha.server("alpha"), beta.server("beta"))
	p := mustProfile(t, g, "")
	assert.Contains(t, g.explain(p, "mcp__alpha__wipe"), "Deny(mcp__alpha__wipe)")
	assert.Contains(t, g.explain(p, "mcp__beta__weather"), "not listed")
	assert.Contains(t, g.explain(p, "echo"), "mcp__alpha__echo is listed: deferred")
	assert.Contains(t, g.explain(p, "mcp__beta__status"), "listed resident")
	assert.Contains(t, g.explain(p, "mcp__alpha__nothing"), "no server lists a tool of that name")
	_ = strings.TrimSpace
}

// TestAskAnswerBound: the user's answer travels back with the retried call
// (multi round-trip); it approves that call only — the same answer sent
// with other arguments asks again, and nothing runs without an answer.
func TestAskAnswerBound(t *testing.T) {
	alpha, beta := twoServers()
	g := testGateway(t, baseRules, alpha.server("alpha"), beta.server("beta"))
	p := mustProfile(t, g, "")
	srv, err := g.server(p)
	require.NoError(t, err)
	ct, st := sdk.NewInMemoryTransports()
	_, err = srv.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	c := sdk.NewClient(&sdk.Implementation{Name: "manual", Version: "1"}, &sdk.ClientOptions{
		// The client answers the question itself, by hand below.
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return nil, nil
		},
	})
	cs, err := c.Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	defer cs.Close()
	ctx := context.Background()
	call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__alpha__transfer"}})
	params := func(amount int) *sdk.CallToolParams {
		return &sdk.CallToolParams{Name: "defer_execute", Arguments: map[string]any{"tool_name": "mcp__alpha__transfer", "params": map[string]any{"amount": amount}}}
	}
	first, err := cs.CallTool(ctx, params(5))
	require.NoError(t, err)
	require.True(t, first.NeedsInput(), "the first run asks")
	q, ok := first.InputRequests[askID].(*sdk.ElicitParams)
	require.True(t, ok)
	assert.Contains(t, q.Message, `{"amount":5}`)
	yes := sdk.InputResponseMap{askID: &sdk.ElicitResult{Action: "accept", Content: map[string]any{askID: true}}}

	other := params(500)
	other.InputResponses, other.RequestState = yes, first.RequestState
	res, err := cs.CallTool(ctx, other)
	require.NoError(t, err)
	assert.True(t, res.NeedsInput(), "an answer about 5 does not approve 500")
	assert.Empty(t, alpha.called())

	same := params(5)
	same.InputResponses, same.RequestState = yes, first.RequestState
	res, err = cs.CallTool(ctx, same)
	require.NoError(t, err)
	require.False(t, res.NeedsInput())
	require.False(t, res.IsError)
	assert.Equal(t, []string{"transfer"}, alpha.called())
}

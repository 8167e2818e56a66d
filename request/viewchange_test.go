package request

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
)

// viewRegistry is a small catalog whose tools each view change moves:
// Read and Write (built-in), AdminPanel (full tier), and an MCP server gh
// whose tools are deferred.
func viewRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	reg := registry.New(nil)
	obj := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	for _, tl := range []registry.Tool{
		{Name: "Read", Description: "Read a file.", RawSchema: obj},
		{Name: "Write", Description: "Write a file.", RawSchema: obj},
		{Name: "AdminPanel", Description: "Administer the project.", RawSchema: obj, Tier: registry.TierFull},
	} {
		tl.Handler = func(_ context.Context, p json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "ran with " + string(p)}, nil
		}
		require.NoError(t, reg.Register(tl))
	}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "gh"}, []registry.Tool{
		mcpTool("list_issues", "List the issues of a repository.", echoSchema),
		mcpTool("create_issue", "Open an issue.", echoSchema),
	}))
	return reg
}

var (
	vcAsk   = deferral.View{Mode: deferral.Mode{Name: "ask", Allow: []string{"Read", "mcp__gh__list_issues"}}}
	vcAgent = deferral.View{}
)

func viewSession(t testing.TB, p Provider, v deferral.View) *Session {
	t.Helper()
	d, err := execute.New(&execute.Options{})
	require.NoError(t, err)
	cfg := testConfig(viewRegistry(t).Snapshot(), p, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.Dispatcher, cfg.View = d, v
	s, err := NewSession(cfg)
	require.NoError(t, err)
	return s
}

// viewStep is one view change of a conversation and what it must leave
// callable: direct by its own name, deferred through defer_execute, or
// refused.
type viewStep struct {
	name                      string
	view                      deferral.View
	direct, deferred, refused []string
	told                      []string // lines of the <view_changed> block
	narrowed                  bool     // a native narrowing rides after the messages
}

// TestViewChangeIsAMessage: across ask → agent → ask, a tier change and an
// elevation granted then withdrawn, on every provider, system and tools[]
// stay byte-identical (every body extends the one before it), the model is
// told at the end, the dispatcher enforces the view, OpenAI's allowed_tools
// and Gemini's allowedFunctionNames narrow tools[] natively, and every body
// passes the provider rule book.
func TestViewChangeIsAMessage(t *testing.T) {
	steps := []viewStep{
		{name: "agent", view: vcAgent,
			direct: []string{"Read"}, deferred: []string{"Write", "mcp__gh__create_issue", "mcp__gh__list_issues"}, refused: []string{"AdminPanel"},
			told: []string{"Available (deferred: load the schema with tool_search, then call with defer_execute): Write, mcp__gh__create_issue"}},
		{name: "ask again", view: vcAsk,
			direct: []string{"Read"}, deferred: []string{"mcp__gh__list_issues"}, refused: []string{"Write", "mcp__gh__create_issue", "AdminPanel"},
			told: []string{"No longer available (calls are refused; do not call them): Write, mcp__gh__create_issue"}},
		{name: "full tier", view: deferral.View{Tier: registry.TierFull},
			direct: []string{"Read"}, deferred: []string{"AdminPanel", "Write", "mcp__gh__create_issue"},
			told: []string{"tier full", "AdminPanel, Write, mcp__gh__create_issue"}},
		{name: "core tier, ask", view: vcAsk,
			refused: []string{"AdminPanel", "Write"},
			told:    []string{"No longer available (calls are refused; do not call them): AdminPanel, Write, mcp__gh__create_issue"}},
		{name: "elevated", view: deferral.View{Mode: vcAsk.Mode, Elevated: true},
			direct: []string{"Read"}, refused: []string{"AdminPanel", "Write"}},
		{name: "agent, elevated", view: deferral.View{Elevated: true},
			deferred: []string{"AdminPanel", "Write"},
			told:     []string{"elevated", "AdminPanel, Write, mcp__gh__create_issue"}},
		{name: "elevation withdrawn", view: vcAgent,
			deferred: []string{"Write"}, refused: []string{"AdminPanel"},
			told: []string{"No longer available (calls are refused; do not call them): AdminPanel"}},
	}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s := viewSession(t, p, vcAsk)
			first, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			prev := first
			checkBody(t, p, first)
			for i, st := range steps {
				require.NoError(t, s.SetView(st.view), st.name)
				body, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok " + st.name}, userMsg("go on")}})
				require.NoError(t, err, st.name)
				assert.Empty(t, wire.StablePrefix(first, body), "%s: system and tools[] byte-identical", st.name)
				assert.Empty(t, wire.AppendOnly(string(p), prev, body), "%s: the body extends the one before it", st.name)
				checkBody(t, p, body)
				fresh := string(body[len(prev)-len("]}"):])
				for _, line := range st.told {
					assert.Contains(t, fresh, line, "%s: the model is told", st.name)
				}
				if len(st.told) > 0 {
					assert.Contains(t, fresh, "<view_changed>", st.name)
				}
				for _, n := range st.direct {
					r := s.Call(t.Context(), n, json.RawMessage(`{"path":"a"}`))
					assert.False(t, r.IsError, "%s: %s callable directly: %s", st.name, n, r.Text)
				}
				for _, n := range st.deferred {
					r := s.Call(t.Context(), registry.ToolSearchName, json.RawMessage(`{"tool_names":["`+n+`"]}`))
					require.False(t, r.IsError, "%s: %s loads: %s", st.name, n, r.Text)
					r = s.Call(t.Context(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+n+`","params":{"path":"a","text":"a"}}`))
					assert.False(t, r.IsError, "%s: %s callable through defer_execute: %s", st.name, n, r.Text)
				}
				for _, n := range st.refused {
					r := s.Call(t.Context(), n, json.RawMessage(`{"path":"a"}`))
					assert.True(t, r.IsError, "%s: %s refused directly", st.name, n)
					r = s.Call(t.Context(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+n+`","params":{"path":"a","text":"a"}}`))
					assert.True(t, r.IsError, "%s: %s refused through defer_execute", st.name, n)
					assert.NotContains(t, r.Text, "ran with", st.name)
				}
				_ = i
				prev = body
			}
		})
	}
}

// checkBody checks a body against the provider's rule book.
func checkBody(t *testing.T, p Provider, body []byte) {
	t.Helper()
	for _, v := range wire.Check(string(p), body) {
		t.Errorf("%s body breaks the provider's rule %s", p, v)
	}
}

// TestViewChangeNativeNarrowing: after a view change that withdraws a tool
// of tools[], OpenAI's bodies carry tool_choice allowed_tools (Chat: under
// "allowed_tools"; Responses: flat) and Gemini's toolConfig carries
// allowedFunctionNames in VALIDATED mode, listing exactly the tools[]
// entries the view allows; Anthropic, whose cache a changed tool_choice
// invalidates, carries none. A view that allows all of tools[] again drops
// the member.
func TestViewChangeNativeNarrowing(t *testing.T) {
	want := map[Provider]string{
		OpenAIChat:      `,"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"tool_search"}},{"type":"function","function":{"name":"defer_execute"}}]}}}`,
		OpenAIResponses: `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"tool_search"},{"type":"function","name":"defer_execute"}]}}`,
		Gemini:          `,"toolConfig":{"functionCallingConfig":{"mode":"VALIDATED","allowedFunctionNames":["tool_search","defer_execute"]}}}`,
		Anthropic:       `]}`,
	}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s := viewSession(t, p, vcAgent) // tools[]: Read, Write, tool_search, defer_execute
			_, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			require.NoError(t, s.SetView(deferral.View{Mode: deferral.Mode{Name: "search only", Allow: []string{"mcp__gh__*"}}}))
			body, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go on")}})
			require.NoError(t, err)
			assert.True(t, strings.HasSuffix(string(body), want[p]), "%s", body[max(0, len(body)-300):])
			checkBody(t, p, body)
			r := s.Call(t.Context(), "Read", json.RawMessage(`{"path":"a"}`))
			assert.True(t, r.IsError, "the dispatcher enforces what the narrowing says")

			require.NoError(t, s.SetView(vcAgent))
			body, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go on")}})
			require.NoError(t, err)
			assert.True(t, strings.HasSuffix(string(body), "]}"), "every tool allowed again: no narrowing")
			assert.Contains(t, string(body), "Available (call them directly): Read, Write")
		})
	}
}

// TestViewRestoreTold: a restore gives the Config's view, which may not be
// the one the saved session had told the model (a narrower mode, an
// elevation the Config does not restore): the next request tells the
// difference, as SetView would, and the prefix is the one sent.
func TestViewRestoreTold(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s := viewSession(t, p, vcAgent)
			first, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			require.NoError(t, s.SetView(vcAsk))
			_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go")}})
			require.NoError(t, err)
			saved, err := s.MarshalState()
			require.NoError(t, err)
			r, err := RestoreSession(s.cfg, saved, nil)
			require.NoError(t, err)
			body, err := r.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("again")}})
			require.NoError(t, err)
			assert.Empty(t, wire.StablePrefix(first, body))
			assert.Contains(t, string(body), "Available (call them directly): Write", "the Config's wider view is told")

			require.NoError(t, r.SetView(deferral.View{Elevated: true}))
			_, err = r.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("elevated")}})
			require.NoError(t, err)
			saved, err = r.MarshalState()
			require.NoError(t, err)
			r2, err := RestoreSession(s.cfg, saved, nil) // no RestoreElevation
			require.NoError(t, err)
			body, err = r2.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("after")}})
			require.NoError(t, err)
			assert.Contains(t, string(body), "No longer available (calls are refused; do not call them): AdminPanel")
			r3 := r2.Call(t.Context(), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"AdminPanel","params":{"path":"a"}}`))
			assert.True(t, r3.IsError)
		})
	}
}

// TestViewChangeRebuildsWhenUnreachable: a session whose prefix has no
// tool_search and defer_execute (nothing deferred, no Config.SelfBuilt)
// cannot reach a tool a wider view shows append-only: SetView rebuilds the
// prefix, a restart it declares itself (the next build is not refused),
// and the bodies after it are stable again. With Config.SelfBuilt the same
// change is a message.
func TestViewChangeRebuildsWhenUnreachable(t *testing.T) {
	for _, selfBuilt := range []bool{false, true} {
		reg := viewRegistry(t)
		cfg := testConfig(reg.Snapshot(), Anthropic, nil, nil)
		cfg.View, cfg.SelfBuilt = deferral.View{Mode: deferral.Mode{Name: "read", Allow: []string{"Read"}}}, selfBuilt
		s, err := NewSession(cfg)
		require.NoError(t, err)
		first, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
		require.NoError(t, err)
		require.NoError(t, s.SetView(vcAgent))
		second, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go")}})
		require.NoError(t, err, "a restart SetView declared itself is built")
		third, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("more")}})
		require.NoError(t, err)
		assert.Empty(t, wire.AppendOnly(string(Anthropic), second, third))
		if selfBuilt {
			assert.Empty(t, wire.StablePrefix(first, second), "with tool_search and defer_execute the view change is a message")
			assert.Contains(t, string(second), "Available (deferred: load the schema with tool_search, then call with defer_execute): Write")
		} else {
			assert.NotEmpty(t, wire.StablePrefix(first, second), "the prefix was rebuilt")
			assert.Contains(t, string(second[:len(s.Prefix())]), `"name":"Write"`)
		}
	}
}

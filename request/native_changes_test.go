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

// nativeWant is, per provider, the native form of the late server's
// arrival (tool_addition with the definition inline; additional_tools)
// and of its leaving ("" where the provider has no removal form).
var nativeWant = map[Provider]struct{ added, left string }{
	Anthropic: {
		added: `{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"mcp__late__sum","description":"Add two numbers and return their sum.","input_schema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}}`,
		left:  `{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"mcp__late__sum"}`,
	},
	OpenAIResponses: {
		added: `{"type":"additional_tools","role":"developer","tools":[{"type":"function","name":"mcp__late__sum","description":"Add two numbers and return their sum.","parameters":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]},"strict":false}]}`,
	},
}

// TestNativeToolChanges: with Config.NativeToolChanges, a late server's
// tool is added in the provider's native form at the end of the
// conversation (besides the announcement) and called directly by its
// name — validated, its rules and hooks applied as through defer_execute;
// the body passes the rule book, extends the one before it, survives a
// restore byte for byte, and the tool's leaving is a native removal on
// Anthropic. The betas are reported.
func TestNativeToolChanges(t *testing.T) {
	for p, want := range nativeWant {
		t.Run(string(p), func(t *testing.T) {
			reg := liveRegistry(t)
			start := reg.Snapshot()
			f := newLiveFixture(t, reg, p, func(c *Config) { c.NativeToolChanges = true })
			b1 := f.turn(t, userMsg("add 2 and 3"))
			assert.NotContains(t, b1, "tool_addition")
			assert.NotContains(t, b1, "additional_tools")

			require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{
				mcpTool("sum", "Add two numbers and return their sum.", sumSchema),
				mcpTool("forbidden", "A tool the harness denies.", echoSchema),
			}))
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
			b2 := f.turn(t, Message{Role: RoleAssistant, Text: "Waiting for the server."}, userMsg("try again"))
			assert.Contains(t, b2, want.added, "the arrival in native form")
			assert.Contains(t, b2, "<new_deferred_tool>", "the announcement stays")
			assert.NotContains(t, b2, "mcp__late__forbidden", "a denied tool is neither adopted nor added")
			checkRules(t, p, []byte(b2))
			assertStablePrefix(t, []byte(b1), []byte(b2))

			// Called directly, governed as through defer_execute.
			r := f.s.Call(context.Background(), "mcp__late__sum", json.RawMessage(`{"a":"two","b":3}`))
			assert.True(t, r.IsError)
			assert.Contains(t, r.Text, "/a", "validated against the arrived schema")
			r = f.s.Call(context.Background(), "mcp__late__sum", json.RawMessage(`{"a":2,"b":3}`))
			require.False(t, r.IsError, r.Text)
			assert.Equal(t, `sum ran with {"a":2,"b":3}`, r.Text)
			assert.Equal(t, []string{"mcp__late__sum"}, f.hooked, "hooks see the direct call (the invalid one was refused before them)")
			sum := r.Text
			r = f.s.Call(context.Background(), "mcp__late__forbidden", json.RawMessage(`{"text":"x"}`))
			assert.True(t, r.IsError, "the deny rule holds")

			call := Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_1", Name: "mcp__late__sum", Arguments: json.RawMessage(`{"a":2,"b":3}`)}}}
			b3 := f.turn(t, call, Message{Role: RoleTool, CallID: "call_1", Text: sum})
			assertStablePrefix(t, []byte(b2), []byte(b3))
			checkRules(t, p, []byte(b3))

			// A restored replica sends the same bytes.
			saved, err := f.s.MarshalState()
			require.NoError(t, err)
			cfg := f.s.cfg
			r2, err := RestoreSession(cfg, saved, nil)
			require.NoError(t, err)
			_, err = r2.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
			next := Message{Role: RoleAssistant, Text: "5"}
			a, err := f.s.BuildRequest(Turn{Messages: []Message{next, userMsg("thanks")}})
			require.NoError(t, err)
			b, err := r2.BuildRequest(Turn{Messages: []Message{next, userMsg("thanks")}})
			require.NoError(t, err)
			assert.Equal(t, string(a), string(b), "the restored session sends the same bytes")

			// The server leaves: a native removal where the provider has one.
			_, err = f.s.Sync(context.Background(), start)
			require.NoError(t, err)
			b5 := f.turn(t, Message{Role: RoleAssistant, Text: "ok"}, userMsg("again"))
			if want.left != "" {
				assert.Contains(t, b5, want.left)
			}
			checkRules(t, p, []byte(b5))
			r = f.s.Call(context.Background(), "mcp__late__sum", json.RawMessage(`{"a":2,"b":3}`))
			assert.True(t, r.IsError, "a removed tool is refused")
		})
	}
}

// TestNativeToolChangesOff: without the option, and on the providers
// without a native form, the bodies carry no native change, a direct call
// of an arrived tool is answered with its schema first (the defer path),
// and no beta is reported.
func TestNativeToolChangesOff(t *testing.T) {
	for _, p := range providers {
		for _, on := range []bool{false, true} {
			reg := liveRegistry(t)
			f := newLiveFixture(t, reg, p, func(c *Config) { c.NativeToolChanges = on })
			f.turn(t, userMsg("add 2 and 3"))
			require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("sum", "Add two numbers and return their sum.", sumSchema)}))
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
			body := f.turn(t, Message{Role: RoleAssistant, Text: "Waiting."}, userMsg("try again"))
			native := on && (p == Anthropic || p == OpenAIResponses)
			assert.Equal(t, native, strings.Contains(body, "tool_addition") || strings.Contains(body, "additional_tools"), "%s on=%v", p, on)
			r := f.s.Call(context.Background(), "mcp__late__sum", json.RawMessage(`{"a":2,"b":3}`))
			assert.Equal(t, !native, r.IsError, "%s on=%v: %s", p, on, r.Text)
			wantBetas := 0
			if on && p == Anthropic {
				wantBetas = 2
			}
			assert.Len(t, f.s.NativeBetas(), wantBetas)
		}
	}
}

// TestNativeToolChangesRestoreEncoded: a session that keeps only its
// encoded history (Config.DropMessages), saved right after the native
// change was sent — its last message a user message followed by the
// native parts — restores on another replica, which sends the same bytes
// next, the change not joined with the next user message.
func TestNativeToolChangesRestoreEncoded(t *testing.T) {
	for p := range nativeWant {
		t.Run(string(p), func(t *testing.T) {
			reg := liveRegistry(t)
			f := newLiveFixture(t, reg, p, func(c *Config) { c.NativeToolChanges, c.DropMessages = true, true })
			f.turn(t, userMsg("add 2 and 3"))
			require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{mcpTool("sum", "Add two numbers and return their sum.", sumSchema)}))
			_, err := f.s.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
			b2 := f.turn(t, Message{Role: RoleAssistant, Text: "Waiting."}, userMsg("try again"))
			saved, err := f.s.MarshalState()
			require.NoError(t, err)
			r, err := RestoreSession(f.s.cfg, saved, nil)
			require.NoError(t, err)
			_, err = r.Sync(context.Background(), reg.Snapshot())
			require.NoError(t, err)
			// A user message right after the change (a harness retrying).
			next := []Message{userMsg("still there?")}
			a, err := f.s.BuildRequest(Turn{Messages: next})
			require.NoError(t, err)
			b, err := r.BuildRequest(Turn{Messages: next})
			require.NoError(t, err)
			assert.Equal(t, string(a), string(b))
			checkRules(t, p, a)
			assert.Empty(t, wire.AppendOnly(string(p), []byte(b2), a))
			if p == Anthropic {
				assert.Contains(t, string(a), `}]},{"role":"user","content":[{"type":"text","text":"<user_query>still there?</user_query>"`, "a new user message after the system message")
			}
		})
	}
}

// TestNativeViewChanges: with Config.NativeToolChanges on Anthropic a view
// change that withdraws tools[] entries removes them natively (by
// reference) besides the <view_changed> block, and one that gives them
// back adds them again by reference; tools[] and system never change, the
// bodies pass the rule book, and the dispatcher still enforces. OpenAI
// keeps its allowed_tools narrowing and sends nothing more.
func TestNativeViewChanges(t *testing.T) {
	for _, p := range []Provider{Anthropic, OpenAIResponses} {
		t.Run(string(p), func(t *testing.T) {
			d, err := execute.New(&execute.Options{})
			require.NoError(t, err)
			cfg := testConfig(viewRegistry(t).Snapshot(), p, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
			cfg.Dispatcher, cfg.View, cfg.NativeToolChanges = d, vcAgent, true
			s, err := NewSession(cfg)
			require.NoError(t, err)
			first, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			require.NoError(t, s.SetView(deferral.View{Mode: deferral.Mode{Name: "search only", Allow: []string{"mcp__gh__*"}}}))
			narrow, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go on")}})
			require.NoError(t, err)
			assert.True(t, s.Call(t.Context(), "Read", json.RawMessage(`{"path":"a"}`)).IsError, "the dispatcher enforces")
			require.NoError(t, s.SetView(vcAgent))
			wide, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("again")}})
			require.NoError(t, err)
			for _, b := range [][]byte{narrow, wide} {
				assert.Empty(t, wire.StablePrefix(first, b))
				checkRules(t, p, b)
				assert.Contains(t, string(b), "<view_changed>")
			}
			assert.Empty(t, wire.AppendOnly(string(p), narrow, wide))
			removal := `{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"Read"}},{"type":"tool_removal","tool":{"type":"tool_reference","name":"Write"}`
			readd := `{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_reference","name":"Read"}},{"type":"tool_addition","tool":{"type":"tool_reference","name":"Write"}`
			if p == Anthropic {
				assert.Contains(t, string(narrow), removal)
				assert.NotContains(t, string(narrow), `"tool_addition"`)
				assert.Contains(t, string(wide), readd)
			} else {
				assert.NotContains(t, string(wide), "additional_tools")
				assert.NotContains(t, string(wide), `"role":"system"`)
			}
		})
	}
}

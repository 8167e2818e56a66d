package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// manyTools is a snapshot of n small tools, t000 … t(n-1).
func manyTools(t *testing.T, n int) *registry.Snapshot {
	t.Helper()
	reg := registry.New(nil)
	for i := range n {
		require.NoError(t, reg.Register(registry.Tool{Name: fmt.Sprintf("t%03d", i), Description: "A tool.",
			RawSchema: json.RawMessage(`{"type":"object"}`)}))
	}
	return reg.Snapshot()
}

// deferFirst defers t000 … t(n-1).
func deferFirst(n int) *deferral.Policy {
	var rules []string
	for i := range n {
		rules = append(rules, fmt.Sprintf("Defer(t%03d)", i))
	}
	return &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("test", rules...)}}
}

// OpenAI Chat Completions refuses more than 128 tools ("Invalid 'tools':
// array too long"): NewSession refuses such a configuration, naming the
// count and how many tools to defer, and deferring that many is enough.
func TestChatToolCount(t *testing.T) {
	tests := []struct {
		name     string
		tools    int
		policy   *deferral.Policy
		sent     int    // entries of tools[] when accepted
		refusal  string // "" means accepted
		fix      string // what the refusal asks for
		provider Provider
	}{
		{"128 resident", 128, &deferral.Policy{}, 128, "", "", OpenAIChat},
		{"129 resident", 129, &deferral.Policy{}, 0, "tools[] would hold 129 tools (129 resident, 0 deferred)", "defer at least 3 more", OpenAIChat},
		{"129 resident: defer 3", 129, deferFirst(3), 128, "", "", OpenAIChat},
		{"127 resident, 2 deferred", 129, deferFirst(2), 0, "tools[] would hold 129 tools (127 resident, 2 deferred)", "defer at least 1 more", OpenAIChat},
		{"127 resident, 1 deferred", 128, deferFirst(1), 0, "tools[] would hold 129 tools (127 resident, 1 deferred)", "defer at least 1 more", OpenAIChat},
		{"all deferred", 300, &deferral.Policy{Default: deferral.DefaultDefer}, 2, "", "", OpenAIChat},
		{"129 resident on Responses", 129, &deferral.Policy{}, 129, "", "", OpenAIResponses},
		{"129 resident on Anthropic", 129, &deferral.Policy{}, 129, "", "", Anthropic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSession(testConfig(manyTools(t, tc.tools), tc.provider, tc.policy, nil))
			if tc.refusal != "" {
				require.ErrorIs(t, err, ErrConfig)
				require.ErrorIs(t, err, ErrTooManyTools)
				assert.Contains(t, err.Error(), tc.refusal)
				assert.Contains(t, err.Error(), "at most 128")
				assert.Contains(t, err.Error(), tc.fix)
				return
			}
			require.NoError(t, err)
			body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			var req struct{ Tools []json.RawMessage }
			require.NoError(t, json.Unmarshal(body, &req))
			assert.Len(t, req.Tools, tc.sent)
			checkRules(t, tc.provider, body)
		})
	}
}

// A call id a provider refuses (too long for OpenAI, outside
// ^[a-zA-Z0-9_-]+$ for Anthropic) is sent as its alias, in the call and in
// its result alike; a valid id is sent as it is. The harness keeps its
// own id, the bytes are append-only across turns, and a restored session
// sends the same bytes.
func TestCallIDs(t *testing.T) {
	id41 := "chatcmpl-tool-8174c6dc1d3047b3953aa8f4220" // vLLM's form, 41 characters
	id65 := "cursor-pi-bridge-run-c2417032-9686-40f2-bd3c-a763fbaa7693-tool-10a"
	require.Len(t, id41, 41)
	require.Len(t, id65, 66)
	tests := []struct {
		provider Provider
		id       string
		aliased  bool
	}{
		{OpenAIChat, "call_abc123", false},
		{OpenAIChat, strings.Repeat("c", 40), false},
		{OpenAIChat, id41, true},
		{OpenAIChat, "functions.Bash:0", false},
		{OpenAIResponses, id41, false},
		{OpenAIResponses, strings.Repeat("c", 64), false},
		{OpenAIResponses, id65, true},
		{Anthropic, "toolu_01A09q90qw90lq917835lq9", false},
		{Anthropic, id65, false},
		{Anthropic, "functions.Bash:0", true},
		{Anthropic, "call_1|fc_1", true},
	}
	reg, _ := loadCatalogs(t, 0, githubFile)
	for _, tc := range tests {
		t.Run(string(tc.provider)+"/"+tc.id, func(t *testing.T) {
			cfg := testConfig(reg.Snapshot(), tc.provider, githubPolicy(), nil)
			s, err := NewSession(cfg)
			require.NoError(t, err)
			turns := []Turn{
				{Messages: []Message{userMsg("Who am I?")}},
				{Messages: []Message{call(tc.id, "mcp__github__get_me", `{}`), result(tc.id, "octocat"), userMsg("thanks")}},
				{Messages: []Message{{Role: RoleAssistant, Text: "You are octocat."}, userMsg("bye")}},
			}
			var bodies [][]byte
			for _, turn := range turns[:2] {
				body, err := s.BuildRequest(turn)
				require.NoError(t, err)
				checkRules(t, tc.provider, body)
				bodies = append(bodies, body)
			}
			sent := tc.id
			if tc.aliased {
				sent = toolname.CallIDAlias(tc.id)
				assert.NotContains(t, string(bodies[1]), jsonBody(tc.id), "the refused id is not sent")
			}
			assert.Equal(t, 2, strings.Count(string(bodies[1]), `"`+jsonBody(sent)+`"`), "the call and its result carry %q", sent)
			assert.Equal(t, tc.id, s.Messages()[1].ToolCalls[0].ID, "the harness keeps its own id")

			saved, err := s.MarshalState()
			require.NoError(t, err)
			restored, err := RestoreSession(cfg, saved, nil)
			require.NoError(t, err)
			next, err := s.BuildRequest(turns[2])
			require.NoError(t, err)
			again, err := restored.BuildRequest(turns[2])
			require.NoError(t, err)
			assert.Equal(t, string(next), string(again), "a restored session sends the same bytes")
			assertStablePrefix(t, append(bodies, next)...)
		})
	}
}

// Two calls of one message sent under one id could not be told apart: a
// harness id equal to another id's alias is refused.
func TestCallIDAliasCollision(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	s, err := NewSession(testConfig(reg.Snapshot(), Anthropic, githubPolicy(), nil))
	require.NoError(t, err)
	alias := toolname.CallIDAlias("a.b")
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hi"), {Role: RoleAssistant, ToolCalls: []ToolCall{
		{ID: "a.b", Name: "mcp__github__get_me"}, {ID: alias, Name: "mcp__github__get_me"},
	}}, result("a.b", "x"), result(alias, "y")}})
	require.ErrorIs(t, err, ErrInvalidMessage)
	assert.Contains(t, err.Error(), "messages[1].tool_calls[1]")
	assert.True(t, errors.Is(err, ErrInvalidMessage))
	assert.Empty(t, s.Messages(), "nothing was added")
}

// BenchmarkCallIDTurn appends a turn of four calls and their results to a
// 200-message history (Anthropic) with ids the provider accepts ("valid",
// sent as they are) and with ids it refuses ("aliased", each sent as its
// alias), and reports aliased/valid: the cost of mapping an id.
func BenchmarkCallIDTurn(b *testing.B) {
	s, _ := benchSession(b, Anthropic, nil)
	base := s.hist.mark()
	turn := func(ids ...string) Turn {
		var calls []ToolCall
		var msgs []Message
		for _, id := range ids {
			calls = append(calls, ToolCall{ID: id, Name: "Read", Arguments: json.RawMessage(`{"path":"a"}`)})
			msgs = append(msgs, result(id, "contents"))
		}
		return Turn{Messages: append([]Message{userMsg("go on"), {Role: RoleAssistant, ToolCalls: calls}}, append(msgs, userMsg("next"))...)}
	}
	valid := turn("toolu_01A", "toolu_01B", "toolu_01C", "toolu_01D")
	aliased := turn("functions.Read:0", "functions.Read:1", "functions.Read:2", "functions.Read:3")
	buf := make([]byte, 0, 1<<20)
	run := func(t Turn) func() {
		return func() {
			var err error
			if buf, err = s.AppendRequest(buf[:0], t); err != nil {
				b.Fatal(err)
			}
			s.hist.rewind(base)
		}
	}
	b.Run("valid", func(b *testing.B) {
		b.ReportAllocs()
		f := run(valid)
		for b.Loop() {
			f()
		}
	})
	b.Run("aliased", func(b *testing.B) {
		b.ReportAllocs()
		f := run(aliased)
		for b.Loop() {
			f()
		}
	})
	b.Run("ratios", func(b *testing.B) {
		fv, fa := run(valid), run(aliased)
		var tv, ta time.Duration
		for b.Loop() {
			t0 := time.Now()
			for range 16 {
				fv()
			}
			t1 := time.Now()
			for range 16 {
				fa()
			}
			tv, ta = tv+t1.Sub(t0), ta+time.Since(t1)
		}
		b.ReportMetric(float64(ta)/float64(tv), "aliased/valid")
	})
}

// Anthropic refuses oneOf, anyOf and allOf at the top of input_schema, and
// one such tool fails every request: the tool is sent without them there
// (and only there), and every body passes the rule book. A schema without
// a type is sent with "type":"object" on every provider.
func TestToolSchemaRules(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(
		registry.Tool{Name: "either", Description: "Needs a path or an id.", RawSchema: json.RawMessage(
			`{"type":"object","properties":{"path":{"type":"string"},"id":{"type":"string"}},"anyOf":[{"required":["path"]},{"required":["id"]}]}`)},
		registry.Tool{Name: "untyped", Description: "No type.", RawSchema: json.RawMessage(`{"properties":{"q":{"type":"string"}}}`)},
	))
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s, err := NewSession(testConfig(reg.Snapshot(), p, &deferral.Policy{}, nil))
			require.NoError(t, err)
			body, err := s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
			require.NoError(t, err)
			checkRules(t, p, body)
			assert.Contains(t, string(body), `{"type":"object","properties":{"q":{"type":"string"}}}`)
			hasAnyOf := strings.Contains(string(body), `"anyOf":[{"required":["path"]}`)
			assert.Equal(t, p != Anthropic, hasAnyOf, "the top-level anyOf is left out on Anthropic only")
		})
	}
}

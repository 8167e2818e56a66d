package sdkcheck

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// With request.Config.NativeToolChanges a late server's tool arrives in
// the provider's native form — Anthropic's system message of tool_addition
// blocks (decoded by anthropic-sdk-go's beta BetaMessageNewParams, the
// only type with a system role and the tool change blocks), the Responses
// API's additional_tools item (openai-go's ResponseNewParams) — is called
// directly, and leaves (Anthropic's tool_removal): every body is one the
// SDK decodes and re-encodes without losing or changing a field, and
// extends the one before it; on Anthropic a view change's withdrawals
// and returns are native too (issue 44).
func TestNativeToolChangesDecodeInTheSDKs(t *testing.T) {
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIResponses} {
		t.Run(string(p), func(t *testing.T) {
			start := catalogSnapshot(t)
			s, err := request.NewSession(request.Config{
				ID: "sdkcheck", Snapshot: start, Provider: p, Model: "test-model",
				Policy:            &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("project", "Defer(mcp__github__*)")}},
				View:              deferral.View{Tier: registry.TierFull},
				System:            "You are a coding agent. Use tools when they help.",
				Extra:             extra(p),
				Pending:           []string{"late"},
				NativeToolChanges: true,
			})
			require.NoError(t, err)
			reg := registry.New(nil)
			require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{{
				Name: "sum", Description: "Add two numbers.",
				RawSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
			}}))
			for _, f := range []string{"catalogs/github.tools.json", "fixtures/harness-catalog.json"} {
				c, err := registry.LoadCatalog(filepath.Join(root, "testdata", f))
				require.NoError(t, err)
				c.Tools = slices.DeleteFunc(c.Tools, func(tl registry.Tool) bool { return c.Server == "" && strings.HasPrefix(tl.Name, "mcp__") })
				require.NoError(t, reg.Import(c))
			}
			require.Equal(t, len(start.Tools())+1, len(reg.Snapshot().Tools()))
			turns := []func() []request.Message{
				func() []request.Message { return []request.Message{{Role: request.RoleUser, Text: "add 2 and 3"}} },
				func() []request.Message {
					_, err := s.Sync(t.Context(), reg.Snapshot())
					require.NoError(t, err)
					return []request.Message{{Role: request.RoleAssistant, Text: "Waiting."}, {Role: request.RoleUser, Text: "try again"}}
				},
				func() []request.Message {
					return []request.Message{
						{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "call_1", Name: "mcp__late__sum", Arguments: json.RawMessage(`{"a":2,"b":3}`)}}},
						{Role: request.RoleTool, CallID: "call_1", Text: "5"},
					}
				},
				func() []request.Message {
					_, err := s.Sync(t.Context(), start)
					require.NoError(t, err)
					return []request.Message{{Role: request.RoleAssistant, Text: "It is 5."}, {Role: request.RoleUser, Text: "thanks"}}
				},
				func() []request.Message {
					require.NoError(t, s.SetView(deferral.View{Mode: deferral.Mode{Name: "ask", ReadOnly: true}, Tier: registry.TierFull}))
					return []request.Message{{Role: request.RoleAssistant, Text: "ok"}, {Role: request.RoleUser, Text: "just look"}}
				},
				func() []request.Message {
					require.NoError(t, s.SetView(deferral.View{Tier: registry.TierFull}))
					return []request.Message{{Role: request.RoleAssistant, Text: "ok"}, {Role: request.RoleUser, Text: "go on"}}
				},
			}
			var prev []byte
			native := 0
			for i, tr := range turns {
				body, err := s.BuildRequest(request.Turn{Messages: tr()})
				require.NoError(t, err, "turn %d", i)
				if prev != nil {
					requesttest.AssertAppendOnly(t, p, prev, body)
				}
				requesttest.CheckProviderRules(t, p, body)
				if strings.Contains(string(body), `"tool_addition"`) || strings.Contains(string(body), `"additional_tools"`) {
					native++
				}
				var problems []Problem
				if p == request.Anthropic {
					var v anthropic.BetaMessageNewParams
					require.NoError(t, json.Unmarshal(body, &v), "turn %d", i)
					rt, err := json.Marshal(v)
					require.NoError(t, err)
					problems, err = Diff(body, rt)
					require.NoError(t, err)
				} else {
					problems, err = Check(p, body)
					require.NoError(t, err)
				}
				for _, pr := range problems {
					t.Errorf("turn %d: %s", i, pr)
				}
				prev = body
			}
			assert.Positive(t, native)
			if p == request.Anthropic {
				assert.Contains(t, string(prev), `{"type":"tool_removal","tool":{"type":"tool_reference","name":"mcp__late__sum"}`)
				assert.Contains(t, string(prev), `{"type":"tool_addition","tool":{"type":"tool_reference","name":`, "the view change's return of tools[] entries")
				assert.Equal(t, []string{"mid-conversation-tool-changes-2026-07-01", "inline-tools-2026-09-15"}, s.NativeBetas())
			}
		})
	}
}

package sdkcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// TestClientBodiesDecodeInTheSDKs runs Client tool search sessions
// (Anthropic, Responses) over the github and harness catalogs for 20
// turns: the model calls tool_search, toolshelf answers in the provider's
// reference form (tool_reference blocks, tool_search_call and
// tool_search_output items), then the model calls a found tool directly.
// Every body round-trips through the SDK without a problem (a sample of
// them outside a long run: see judged).
func TestClientBodiesDecodeInTheSDKs(t *testing.T) {
	snap := catalogSnapshot(t)
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIResponses} {
		t.Run(string(p), func(t *testing.T) {
			s, err := request.NewSession(request.Config{
				ID:         "sdkcheck-client",
				Snapshot:   snap,
				Policy:     &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("project", "Defer(mcp__github__*)", "NoDefer(mcp__github__get_*)")}},
				View:       deferral.View{Tier: registry.TierFull},
				Provider:   p,
				Model:      "gpt-5.4",
				System:     "You are a coding agent.",
				Extra:      extra(p),
				ToolSearch: request.Client,
			})
			require.NoError(t, err)
			bodies := 0
			check := func(turn request.Turn) {
				t.Helper()
				body, err := s.BuildRequest(turn)
				require.NoError(t, err)
				requesttest.CheckProviderRules(t, p, body)
				bodies++
				if !judged(bodies-1, 21, 1) {
					return
				}
				problems, err := Check(p, body)
				require.NoError(t, err)
				for _, pr := range problems {
					t.Errorf("turn %d: %s", bodies-1, pr)
				}
			}
			check(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "Find open issues"}}})
			refs := 0
			for i := range 20 {
				search := request.ToolCall{ID: fmt.Sprint("ts_", i), Name: registry.ToolSearchName, Arguments: json.RawMessage(`{"queries":["list issues"],"limit":2}`)}
				if i%2 == 1 {
					search.Arguments = json.RawMessage(`{"tool_names":["mcp__github__list_issues","mcp__github__create_issue"]}`)
				}
				answer := s.Answer(context.Background(), search)
				refs += len(answer.ToolReferences)
				id := fmt.Sprint("call_", i)
				check(request.Turn{Messages: []request.Message{
					{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{search}},
					answer,
					{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: id, Name: "mcp__github__list_issues", Arguments: json.RawMessage(`{"owner":"o","repo":"r"}`)}}},
					{Role: request.RoleTool, CallID: id, Text: "[]"},
					{Role: request.RoleUser, Text: fmt.Sprintf("and again (%d)", i)},
				}})
			}
			assert.Equal(t, 21, bodies)
			assert.GreaterOrEqual(t, refs, 20, "every search loads by reference")
		})
	}
}

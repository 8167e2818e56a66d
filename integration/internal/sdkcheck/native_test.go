package sdkcheck

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// nativeParts are the provider-native parts a provider-side tool search
// leaves in an assistant message, as the provider returns them.
func nativeParts(p request.Provider, i int) []json.RawMessage {
	if p == request.Anthropic {
		return []json.RawMessage{
			json.RawMessage(fmt.Sprintf(`{"type":"server_tool_use","id":"srvtoolu_%d","name":"tool_search_tool_bm25","input":{"query":"list issues"}}`, i)),
			json.RawMessage(fmt.Sprintf(`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_%d","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"mcp__github__list_issues"}]}}`, i)),
		}
	}
	return []json.RawMessage{
		json.RawMessage(fmt.Sprintf(`{"type":"tool_search_call","id":"tsc_%d","call_id":"ts_%d","status":"completed","execution":"server","arguments":{"query":"list issues"}}`, i, i)),
		json.RawMessage(fmt.Sprintf(`{"type":"tool_search_output","id":"tso_%d","call_id":"ts_%d","status":"completed","execution":"server","tools":[]}`, i, i)),
	}
}

// TestNativeBodiesDecodeInTheSDKs builds native tool search sessions
// (Anthropic BM25 and regex, Responses hosted tool_search) over the github
// and harness catalogs, with the github tools deferred — some resident, or
// all deferred — and runs 30 turns of provider-side searches and direct
// calls of the found tools: every body round-trips through the SDK
// without a problem. Outside a long run the turns repeat one shape, so the
// judge sees the first three bodies, the first with an error result and
// the last, which holds every message.
func TestNativeBodiesDecodeInTheSDKs(t *testing.T) {
	policies := map[string][]string{
		"some resident": {"Defer(mcp__github__*)", "NoDefer(mcp__github__get_*)"},
		"all deferred":  {"Defer(mcp__github__*)"},
	}
	modes := []struct {
		p    request.Provider
		mode request.ToolSearch
	}{
		{request.Anthropic, request.Native},
		{request.Anthropic, request.NativeRegex},
		{request.OpenAIResponses, request.Native},
	}
	snap := catalogSnapshot(t)
	for _, m := range modes {
		for pname, rules := range policies {
			t.Run(fmt.Sprintf("%s/%s/%s", m.p, m.mode, pname), func(t *testing.T) {
				s, err := request.NewSession(request.Config{
					ID:          "sdkcheck-native",
					Snapshot:    snap,
					Policy:      &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("project", rules...)}},
					View:        deferral.View{Tier: registry.TierFull},
					Provider:    m.p,
					Model:       "gpt-5.4", // the Responses API's hosted tool_search needs gpt-5.4 or later
					System:      "You are a coding agent.",
					Extra:       extra(m.p),
					ToolSearch:  m.mode,
					SystemItems: []string{`<skill name="review">Review diffs carefully.</skill>`},
				})
				require.NoError(t, err)
				require.NotEmpty(t, s.Plan().Deferred())
				bodies := 0
				check := func(turn request.Turn) {
					t.Helper()
					body, err := s.BuildRequest(turn)
					require.NoError(t, err)
					requesttest.CheckProviderRules(t, m.p, body)
					bodies++
					if i := bodies - 1; !longtest.On() && i >= 3 && i != 5 && i != 30 {
						return
					}
					problems, err := Check(m.p, body)
					require.NoError(t, err)
					for _, pr := range problems {
						t.Errorf("turn %d: %s", bodies-1, pr)
					}
				}
				check(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "Find open issues"}}})
				// create_issue leaves the github server: Sync announces it.
				change, err := s.Sync(t.Context(), catalogSnapshot(t, "create_issue"))
				require.NoError(t, err)
				require.Equal(t, []string{"mcp__github__create_issue"}, change.Removed)
				for i := range 30 {
					id := fmt.Sprint("call_", i)
					check(request.Turn{Messages: []request.Message{
						{Role: request.RoleAssistant, Text: "Searching.", Native: nativeParts(m.p, i), ToolCalls: []request.ToolCall{
							{ID: id, Name: "mcp__github__list_issues", Arguments: json.RawMessage(`{"owner":"o","repo":"r"}`)},
						}},
						{Role: request.RoleTool, CallID: id, Text: "[]", IsError: i%5 == 4},
						{Role: request.RoleUser, Text: fmt.Sprintf("and again </user_query> (%d)", i)},
					}})
				}
				assert.Equal(t, 31, bodies)
			})
		}
	}
}

package sdkcheck

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// Across agent → ask → agent → ask, a tier change and an elevation granted
// then withdrawn, every body — the <view_changed> blocks, OpenAI's
// tool_choice allowed_tools (Chat and Responses) and Gemini's toolConfig
// allowedFunctionNames included — is one the official SDK decodes and
// re-encodes without losing or changing a field, and extends the one
// before it with the prefix unchanged (issue 44).
func TestViewChangeBodiesDecodeInTheSDKs(t *testing.T) {
	ask := deferral.View{Mode: deferral.Mode{Name: "ask", ReadOnly: true}}
	views := []deferral.View{ask, {}, ask, {Tier: registry.TierCore}, {Tier: registry.TierCore, Elevated: true}, {Tier: registry.TierCore}, ask}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			s := newSession(t, p, catalogSnapshot(t))
			first, err := s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "hi"}}})
			require.NoError(t, err)
			prev, narrowed := first, 0
			for i, v := range views {
				require.NoError(t, s.SetView(v))
				body, err := s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleAssistant, Text: "ok"}, {Role: request.RoleUser, Text: "go on"}}})
				require.NoError(t, err, "view %d", i)
				requesttest.AssertStablePrefix(t, first, body)
				requesttest.AssertAppendOnly(t, p, prev, body)
				requesttest.CheckProviderRules(t, p, body)
				if strings.Contains(string(body), `"allowed_tools"`) || strings.Contains(string(body), `"allowedFunctionNames"`) {
					narrowed++
				}
				problems, err := Check(p, body)
				require.NoError(t, err)
				for _, pr := range problems {
					t.Errorf("view %d: %s", i, pr)
				}
				prev = body
			}
			if p != request.Anthropic {
				assert.Positive(t, narrowed, "the ask mode narrows tools[] natively")
			}
		})
	}
}

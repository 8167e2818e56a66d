package registry

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tool.Aliased and Snapshot.TierOf are the plain facts defer's plan,
// execute's rules, request's view and the CLI read off a tool (issue 42:
// they were internal/regview, a seam package).
func TestToolFacts(t *testing.T) {
	r := New(nil)
	long := strings.Repeat("x", 70-len("mcp__github__"))
	require.NoError(t, r.Import(&Catalog{Server: "github", Tools: []Tool{{Name: "get_me"}, {Name: "repos.list"}, {Name: long}}}))
	require.NoError(t, r.ReplaceGroup(Group{Name: "secret", Tier: TierFull}, []Tool{{Name: "drop_db"}, {Name: "peek", Tier: TierCore}}))
	require.NoError(t, r.Register(Tool{Name: "Read"}, Tool{Name: "Deep", Tier: TierFull}))
	s := r.Snapshot()

	aliased := map[string]bool{}
	for _, tl := range s.Tools() {
		if tl.Aliased() {
			aliased[tl.OriginalName] = true
		}
	}
	assert.Equal(t, map[string]bool{"repos.list": true, long: true}, aliased, "only MCP tools whose mcp__ name broke the name rule")

	tier := map[string]Tier{}
	for _, tl := range s.Tools() {
		tier[tl.Name] = s.TierOf(tl)
	}
	assert.Equal(t, TierCore, tier["mcp__github__get_me"], "no tier anywhere: core")
	assert.Equal(t, TierFull, tier["mcp__secret__drop_db"], "the group's tier")
	assert.Equal(t, TierCore, tier["mcp__secret__peek"], "the tool's own tier wins over its group's")
	assert.Equal(t, TierCore, tier["Read"])
	assert.Equal(t, TierFull, tier["Deep"])
}

package deferral

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// serverNames enumerates every name of up to four bytes over {a, b, _, -}:
// enough to hold each way a separator can sit at an end or double up.
func serverNames() []string {
	alpha := []string{"a", "b", "_", "-"}
	out := []string{""}
	level := []string{""}
	for range 4 {
		var next []string
		for _, p := range level {
			for _, c := range alpha {
				next = append(next, p+c)
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// TestServerPatternsMatchOneServer is issue 11's case 3: a server named
// "github_" exposed "mcp__github___x", which Allow(mcp__github__*) and mode
// allowlists matched. With canonical server names, the server-wide pattern
// mcp__<s>__* used by rules, modes and hooks (all through Match) matches
// the tools of s and of no other registrable server, and SplitMCPName
// gives back the server and tool the name was built from.
func TestServerPatternsMatchOneServer(t *testing.T) {
	var servers []string
	for _, s := range serverNames() {
		err := registry.New(nil).AddGroup(registry.Group{Name: s})
		if toolname.CanonicalGroup(s) {
			require.NoError(t, err, "%q", s)
			servers = append(servers, s)
		} else {
			require.ErrorIs(t, err, registryx.ErrInvalidName, "%q", s)
		}
	}
	require.Greater(t, len(servers), 50)
	tools := []string{"x", "_x", "__x", "x_", "x__y", "-"}
	for _, owner := range servers {
		pattern := toolname.MCPPrefix + owner + "__*"
		mode := Mode{Name: "m", Allow: []string{pattern}}
		for _, s := range servers {
			for _, tool := range tools {
				name := toolname.MCPName(s, tool)
				tl := &registry.Tool{Name: name}
				assert.Equal(t, s == owner, match(pattern, name), "Match(%q, %q)", pattern, name)
				assert.Equal(t, s == owner, mode.allows(tl), "mode %q allows %q", pattern, name)
				if owner == servers[0] {
					gs, gt, ok := toolname.SplitMCP(name)
					assert.True(t, ok)
					assert.Equal(t, [2]string{s, tool}, [2]string{gs, gt}, "SplitMCPName(%q)", name)
				}
			}
		}
	}
}

func TestTrailingUnderscoreServerRefused(t *testing.T) {
	r := registry.New(nil)
	for _, name := range []string{"github_", "_github", "git__hub"} {
		assert.ErrorIs(t, r.AddGroup(registry.Group{Name: name}), registryx.ErrInvalidName, name)
		assert.ErrorIs(t, r.ReplaceGroup(registry.Group{Name: name}, []registry.Tool{{Name: "x"}}), registryx.ErrInvalidName, name)
		assert.ErrorIs(t, r.SetGroup(registry.Group{Name: name}), registryx.ErrInvalidName, name)
		assert.ErrorIs(t, r.Import(&registry.Catalog{Server: name, Tools: []registry.Tool{{Name: "x"}}}), registryx.ErrInvalidName, name)
		_, err := registry.ParseCatalog([]byte(`{"server":"` + name + `","tools":[]}`))
		assert.ErrorIs(t, err, registryx.ErrInvalidName, name)
	}
	assert.Zero(t, len(r.Snapshot().Tools()))
}

// An alias (for an MCP tool name that breaks the providers' rule) cut
// from a long server's name must not read as a shorter server's tool: a
// 49-byte server A and a server A_zz whose tool "t.u" would be aliased
// "mcp__A__<hash>", which Allow(mcp__A__*) matches. Such a tool is refused.
func TestAliasCannotBorrowAnotherServer(t *testing.T) {
	a := strings.Repeat("a", 49)
	r := registry.New(nil)
	require.NoError(t, r.ReplaceGroup(registry.Group{Name: a}, []registry.Tool{{Name: "x"}}))
	require.NoError(t, r.ReplaceGroup(registry.Group{Name: a + "_zz"}, []registry.Tool{{Name: "t.u"}, {Name: "ok"}}))
	for _, tl := range r.Snapshot().Tools() {
		server, _, ok := toolname.SplitMCP(tl.Name)
		require.True(t, ok, tl.Name)
		assert.Equal(t, tl.Group, server, "%s reads as server %s", tl.Name, server)
		assert.Equal(t, tl.Group == a, match(toolname.MCPPrefix+a+"__*", tl.Name), tl.Name)
	}
	rej := r.Rejected()
	require.Len(t, rej, 1)
	assert.Equal(t, "t.u", rej[0].Name)
	assert.ErrorIs(t, rej[0].Err, registryx.ErrInvalidName)

	// A server short enough keeps its prefix whole in every alias.
	require.NoError(t, r.ReplaceGroup(registry.Group{Name: "srv"}, []registry.Tool{{Name: strings.Repeat("t.", 40)}}))
	tl := r.Snapshot().Tools()
	found := false
	for _, x := range tl {
		if x.Group == "srv" {
			found = true
			assert.True(t, strings.HasPrefix(x.Name, "mcp__srv__"), x.Name)
			assert.True(t, toolname.Valid(x.Name), x.Name)
		}
	}
	assert.True(t, found)
}

package deferral

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// Explain shows an aliased MCP tool's server name, and finds the tool by
// either name.
func TestExplainAlias(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Import(&registry.Catalog{Server: "srv", Tools: []registry.Tool{{Name: "files.read"}, {Name: "plain"}}}))
	plan, err := (&Policy{Default: DefaultDefer}).Plan(reg.Snapshot(), View{})
	require.NoError(t, err)
	alias := toolname.MCPName("srv", "files.read")
	for _, name := range []string{alias, "mcp__srv__files.read"} {
		d, ok := plan.Explain(name)
		require.True(t, ok, name)
		assert.Equal(t, alias, d.Name)
		assert.Equal(t, "files.read", d.AliasOf)
		assert.True(t, strings.HasPrefix(d.String(), alias+` (alias of the server's tool "files.read"): deferred`), d.String())
	}
	d, ok := plan.Explain("mcp__srv__plain")
	require.True(t, ok)
	assert.Empty(t, d.AliasOf)
	_, ok = plan.Explain("mcp__srv__nope.x")
	assert.False(t, ok)
}

package request

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// TestSyncSameDefinitionIsCanonical (issue 35): Sync decides "same
// definition" by the canonical definition, as the pins hash it: a server
// that lists a tool again with its schema's keys in another order and
// other spacing changed nothing (no pending change whose two hashes are
// equal); a changed value is still a change.
func TestSyncSameDefinitionIsCanonical(t *testing.T) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, nil)
	f.turn(t, userMsg("hi"))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
		mcpTool("list_dir", "List the entries of a directory.", `{ "required": ["path"], "properties": { "path": { "type": "string" } }, "type": "object" }`),
		mcpTool("stat", "Show a file's size and modification time.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}))
	c, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	assert.Empty(t, c.Changed, "reordered keys are the same definition")
	assert.Empty(t, f.s.PendingChanges())

	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{
		mcpTool("list_dir", "List the entries of a directory.", `{"required":["path"],"properties":{"path":{"type":"integer"}},"type":"object"}`),
		mcpTool("stat", "Show a file's size and modification time.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}))
	c, err = f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp__files__list_dir"}, c.Changed)
	pend := f.s.PendingChanges()
	require.Len(t, pend, 1)
	assert.NotEqual(t, pend[0].OldSHA256, pend[0].NewSHA256)
}

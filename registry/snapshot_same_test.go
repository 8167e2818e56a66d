package registry

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnapshotSameTools: snapshots share a tool set only when their tool
// values and their groups' tiers are the same; anything else a session
// must compare tool by tool.
func TestSnapshotSameTools(t *testing.T) {
	tool := func(name, desc string) Tool {
		return Tool{Name: name, Description: desc, RawSchema: json.RawMessage(`{"type":"object"}`)}
	}
	r := New(nil)
	require.NoError(t, r.ReplaceGroup(Group{Name: "s"}, []Tool{tool("a", "A."), tool("b", "B.")}))
	base := r.Snapshot()

	require.NoError(t, r.SetGroup(Group{Name: "s", Description: "Now described."}))
	desc := r.Snapshot()
	assert.Greater(t, desc.Version(), base.Version())
	assert.True(t, desc.SameTools(base), "a description changed")
	assert.Equal(t, base.Tools(), desc.Tools())
	g, _ := desc.Group("s")
	assert.Equal(t, "Now described.", g.Description, "the new snapshot has the new group")

	require.NoError(t, r.AddGroup(Group{Name: "empty"}))
	empty := r.Snapshot()
	assert.True(t, empty.SameTools(base), "a group without tools")
	assert.Len(t, empty.Groups(), len(base.Groups())+1)

	// After "tier", every step keeps the tier: only what it names changes.
	trusted := Group{Name: "s", Tier: TierFull, TrustAnnotations: true}
	steps := map[string]func(){
		"tier":      func() { require.NoError(t, r.SetGroup(Group{Name: "s", Tier: TierFull})) },
		"trust":     func() { require.NoError(t, r.SetGroup(trusted)) },
		"relisted":  func() { require.NoError(t, r.ReplaceGroup(trusted, []Tool{tool("a", "A."), tool("b", "B.")})) },
		"changed":   func() { require.NoError(t, r.ReplaceGroup(trusted, []Tool{tool("a", "A, changed."), tool("b", "B.")})) },
		"added":     func() { require.NoError(t, r.Register(tool("c", "C."))) },
		"removed":   func() { require.NoError(t, r.Remove("c")) },
		"group out": func() { require.NoError(t, r.RemoveGroup("s")) },
	}
	for _, name := range []string{"tier", "trust", "relisted", "changed", "added", "removed", "group out"} {
		before := r.Snapshot()
		steps[name]()
		assert.False(t, r.Snapshot().SameTools(before), name)
	}

	other := New(nil)
	require.NoError(t, other.ReplaceGroup(Group{Name: "s"}, []Tool{tool("a", "A."), tool("b", "B.")}))
	assert.False(t, other.Snapshot().SameTools(base), "another registry")
	assert.False(t, base.SameTools(nil))
	assert.False(t, (*Snapshot)(nil).SameTools(base))
	assert.False(t, (&Snapshot{}).SameTools(&Snapshot{}), "snapshots not built by a registry")
}

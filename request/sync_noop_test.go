package request

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// noopPair returns a session that adopted n arrived tools and two newer
// snapshots of its registry that change only a group's description:
// nothing the session shows.
func noopPair(t *testing.T, n int) (*Session, *registry.Snapshot, *registry.Snapshot) {
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, nil)
	tools := make([]registry.Tool, n)
	for i := range tools {
		tools[i] = registry.Tool{Name: fmt.Sprintf("t%05d", i), Description: "A tool.", RawSchema: json.RawMessage(`{"type":"object"}`)}
	}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "big"}, tools))
	c, err := f.s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	require.Len(t, c.Added, n)
	require.NoError(t, reg.SetGroup(registry.Group{Name: "files", Description: "Files."}))
	a := reg.Snapshot()
	require.NoError(t, reg.SetGroup(registry.Group{Name: "files", Description: "The files."}))
	b := reg.Snapshot()
	require.NotSame(t, a, b)
	return f.s, a, b
}

// TestViewSyncNoopConstant: a Sync with a snapshot that holds the same
// tools as the last one compared (a group's description changed) answers
// at once, whatever the number of arrived tools: 8,000 cost about what
// 1,000 do. Each sample is 200 Syncs alternating between two such
// snapshots (each a new pointer to the session); the fastest of 15
// interleaved samples of each size are compared. df84c27 compared every
// tool (a map lookup each): ×24.6 measured with its Sync. The bound, 3×, leaves room for a
// busy machine and fails a scan per tool.
func TestViewSyncNoopConstant(t *testing.T) {
	if raceEnabled {
		t.Skip("time ratios under the race detector are not the code's")
	}
	sample := func(s *Session, a, b *registry.Snapshot) time.Duration {
		ctx := context.Background()
		start := time.Now()
		for i := range 200 {
			snap := a
			if i%2 == 1 {
				snap = b
			}
			c, err := s.Sync(ctx, snap)
			if err != nil || len(c.Added)+len(c.Removed)+len(c.Changed) > 0 {
				t.Fatalf("no-op Sync: %v %+v", err, c)
			}
		}
		return time.Since(start)
	}
	s1, a1, b1 := noopPair(t, 1000)
	s8, a8, b8 := noopPair(t, 8000)
	small, large := time.Hour, time.Hour
	for range 15 {
		small, large = min(small, sample(s1, a1, b1)), min(large, sample(s8, a8, b8))
	}
	ratio := float64(large) / float64(small)
	t.Logf("200 no-op Syncs: 1,000 arrived %v, 8,000 arrived %v (×%.1f)", small, large, ratio)
	assert.Less(t, ratio, 3.0)
}

// TestViewSyncNoopStillSees: the O(1) answer is taken only when nothing
// the comparison reads changed. With the same tools, a pending server's
// group that appears is still noticed, and after SetView gives the
// elevation a full-tier arrival needs, a Sync with the very snapshot that
// was compared before adopts it (df84c27 returned at once on the same
// snapshot, so the arrival waited for some other registry change).
func TestViewSyncNoopStillSees(t *testing.T) {
	ctx := context.Background()
	reg := liveRegistry(t)
	f := newLiveFixture(t, reg, Anthropic, func(c *Config) { c.Pending = []string{"slow"} })
	f.turn(t, userMsg("hi"))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late", Tier: registry.TierFull}, []registry.Tool{mcpTool("sum", "Add two numbers.", sumSchema)}))
	full := reg.Snapshot()
	c, err := f.s.Sync(ctx, full)
	require.NoError(t, err)
	assert.Empty(t, c.Added, "a full-tier arrival at core tier is not adopted")

	require.NoError(t, f.s.SetView(deferral.View{Tier: registry.TierCore, Elevated: true}))
	c, err = f.s.Sync(ctx, full)
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp__late__sum"}, c.Added, "the same snapshot, re-decided after SetView")
	_, _, ok := f.s.Lookup("mcp__late__sum")
	assert.True(t, ok)

	require.NoError(t, reg.AddGroup(registry.Group{Name: "slow"}))
	withSlow := reg.Snapshot()
	require.True(t, withSlow.SameTools(full), "a group without tools leaves the tools alone")
	_, err = f.s.Sync(ctx, withSlow)
	require.NoError(t, err)
	f.s.mu.Lock()
	servers := f.s.pendingServers()
	f.s.mu.Unlock()
	assert.NotContains(t, servers, "slow", "the pending server's group was seen")
}

package request

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// changedTools is n tools of a server, each with a schema of about 830
// bytes of short properties (a line of indented JSON every ten bytes or
// so), whose description and last property say word: a change that spans
// the whole definition, line by line.
func changedTools(n int, word string) []registry.Tool {
	out := make([]registry.Tool, n)
	for i := range out {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for p := range 30 {
			if p > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"f%02d":{"type":"integer"}`, p)
		}
		fmt.Fprintf(&b, `,"zz_%s":{"type":"string"}},"required":["f00"]}`, word)
		out[i] = mcpTool(fmt.Sprintf("tool_%02d", i), "A tool that does "+word+" things.", b.String())
	}
	return out
}

// TestSyncChangedToolsAllocation: issue 43 — a Sync of 50 changed tools
// (about 83 KB of old and new definitions) allocated 13 MB, 158 bytes per
// definition byte, against the library's bound of 64 bytes per byte for
// stored state: each pending change's line diff allocated a full LCS
// table. The Sync's allocation is linear in the definitions, within that
// bound.
func TestSyncChangedToolsAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's allocations are not the code's")
	}
	reg := registry.New(nil)
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "s"}, changedTools(50, "old")))
	cfg := testConfig(reg.Snapshot(), Anthropic, &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}}, nil)
	cfg.ToolSearch = Portable
	s, err := NewSession(cfg)
	require.NoError(t, err)
	_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
	require.NoError(t, err)
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "s"}, changedTools(50, "new")))
	snap := reg.Snapshot()
	in := 0
	for _, nt := range snap.Tools() {
		if ot, ok := s.cfg.Snapshot.Tool(nt.Name); ok && nt.Group == "s" {
			in += len(ot.CanonicalDefinition()) + len(nt.CanonicalDefinition())
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = s.Sync(context.Background(), snap)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, s.PendingChanges(), 50)
	perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(in)
	t.Logf("Sync of 50 changed tools: %d definition bytes, %d bytes allocated, %.1f per byte", in, after.TotalAlloc-before.TotalAlloc, perByte)
	assert.Less(t, perByte, 64.0)
}

// TestHirschbergMinimal: the linear-space diff removes and adds exactly
// the lines outside a longest common subsequence (checked against the
// table of every cell), and what it keeps, removes and adds rebuilds both
// sides in order.
func TestHirschbergMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	for range 500 {
		a, b := make([]string, rng.IntN(30)), make([]string, rng.IntN(30))
		for i := range a {
			a[i] = string(rune('a' + rng.IntN(4)))
		}
		for i := range b {
			b[i] = string(rune('a' + rng.IntN(4)))
		}
		var out strings.Builder
		rows := make([]int32, 2*(len(b)+1))
		hirschberg(a, b, rows[:len(b)+1], rows[len(b)+1:], &out)
		table := make([][]int, len(a)+1)
		for i := range table {
			table[i] = make([]int, len(b)+1)
		}
		for i := len(a) - 1; i >= 0; i-- {
			for j := len(b) - 1; j >= 0; j-- {
				if a[i] == b[j] {
					table[i][j] = table[i+1][j+1] + 1
				} else {
					table[i][j] = max(table[i+1][j], table[i][j+1])
				}
			}
		}
		lcs := table[0][0]
		var minus, plus []string
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l == "" {
				continue
			}
			if v, ok := strings.CutPrefix(l, "- "); ok {
				minus = append(minus, v)
			} else {
				plus = append(plus, strings.TrimPrefix(l, "+ "))
			}
		}
		require.Len(t, minus, len(a)-lcs, "%q → %q", a, b)
		require.Len(t, plus, len(b)-lcs, "%q → %q", a, b)
	}
}

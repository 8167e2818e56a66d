package toolsearch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// TestScopeRemovedAndReplaced: a session's removed tools are never found
// and a load by name says they were removed; an announced tool carrying a
// deferred tool's name (an approved new definition) replaces the shared
// one, in a load and in a ranked search, without a duplicate hit.
func TestScopeRemovedAndReplaced(t *testing.T) {
	reg := registry.New(nil)
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	require.NoError(t, reg.Register(
		registry.Tool{Name: "stat_file", Description: "Show a file's size and modification time.", RawSchema: schema},
		registry.Tool{Name: "list_dir", Description: "List the entries of a directory.", RawSchema: schema},
		registry.Tool{Name: "read_file", Description: "Read a file's text.", RawSchema: schema},
	))
	plan, err := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)
	ctx := context.Background()
	call := func(sc Scope, args string) string {
		sc.Loaded = NewLoadedSet()
		res := s.Call(ctx, json.RawMessage(args), sc)
		return res.Text
	}

	gone := Scope{Removed: []string{"stat_file"}}
	assert.Contains(t, call(gone, `{"tool_names":["stat_file"]}`), "stat_file was removed during this session")
	assert.NotContains(t, call(gone, `{"queries":["file size modification time"]}`), "stat_file")
	assert.Contains(t, call(Scope{}, `{"queries":["file size modification time"]}`), "stat_file", "without Removed it is found")

	updated := &registry.Tool{Name: "stat_file", Description: "Show a file's size, owner and modification time.", RawSchema: schema}
	replaced := Scope{Announced: []*registry.Tool{updated}, Overlay: &Overlay{}}
	assert.Contains(t, call(replaced, `{"tool_names":["stat_file"]}`), "owner", "a load returns the approved definition")
	found := call(replaced, `{"queries":["file size owner"]}`)
	assert.Contains(t, found, "owner")
	assert.Equal(t, 1, strings.Count(found, "## stat_file")+strings.Count(found, "- stat_file"), "one hit for the name:\n%s", found)
	assert.NotContains(t, found, "size and modification time", "the shared definition is not shown")
}

package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// TestDiffNamesCanonical (issue 35): the manager decides which of a
// server's tools changed by the canonical definition, as sessions do: a
// listing with the schema's keys in another order is the same tool; a
// changed value or annotation is a change.
func TestDiffNamesCanonical(t *testing.T) {
	reg := registry.New(nil)
	ro := true
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "srv", Source: registry.SourceMCP}, []registry.Tool{
		{Name: "get", Description: "Get a thing.", RawSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`), Annotations: &registry.Annotations{ReadOnlyHint: &ro}},
	}))
	snap := reg.Snapshot()
	listed := func(schema string, ann *registry.Annotations) []registry.Tool {
		return []registry.Tool{{Name: "get", Description: "Get a thing.", RawSchema: json.RawMessage(schema), Annotations: ann}}
	}
	assert.True(t, sameTools(snap, "srv", listed(`{"properties": {"id": {"type": "string"}}, "type": "object"}`, &registry.Annotations{ReadOnlyHint: &ro})))
	_, _, c := diffNames(snap, "srv", listed(`{"type":"object","properties":{"id":{"type":"integer"}}}`, &registry.Annotations{ReadOnlyHint: &ro}))
	assert.Equal(t, []string{"get"}, c)
	_, _, c = diffNames(snap, "srv", listed(`{"type":"object","properties":{"id":{"type":"string"}}}`, nil))
	assert.Equal(t, []string{"get"}, c)
}

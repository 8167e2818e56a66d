package registry_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolshelf/toolshelf/registry"
)

// TestCanonicalDefinition: the canonical form sorts keys at every level,
// drops insignificant space, keeps numbers as written and "<" unescaped;
// key order and spacing do not make another definition, a value does.
func TestCanonicalDefinition(t *testing.T) {
	yes := true
	a := &registry.Tool{Name: "mcp__s__t", Description: "Find <things>.",
		RawSchema:   json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":1e3},"a":{"type":"string"}}}`),
		Annotations: &registry.Annotations{ReadOnlyHint: &yes}}
	b := &registry.Tool{Name: "mcp__s__t", Description: "Find <things>.",
		RawSchema:   json.RawMessage(`{ "properties": { "a": {"type":"string"}, "n": {"maximum":1e3, "type":"integer"} }, "type": "object" }`),
		Annotations: &registry.Annotations{ReadOnlyHint: &yes}}
	want := `{"annotations":{"readOnlyHint":true},"description":"Find <things>.","input_schema":{"properties":{"a":{"type":"string"},"n":{"maximum":1e3,"type":"integer"}},"type":"object"},"name":"mcp__s__t"}`
	assert.Equal(t, want, string(a.CanonicalDefinition()))
	assert.Equal(t, want, string(b.CanonicalDefinition()), "key order and spacing aside")

	for name, mut := range map[string]func(*registry.Tool){
		"name":        func(t *registry.Tool) { t.Name = "mcp__s__u" },
		"description": func(t *registry.Tool) { t.Description = "Find things." },
		"schema":      func(t *registry.Tool) { t.RawSchema = json.RawMessage(`{"type":"object"}`) },
		"number": func(t *registry.Tool) {
			t.RawSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":1000},"a":{"type":"string"}}}`)
		},
		"annotations": func(t *registry.Tool) { t.Annotations = nil },
	} {
		c := *a
		mut(&c)
		assert.NotEqual(t, want, string(c.CanonicalDefinition()), name)
	}
}

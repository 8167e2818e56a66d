package toolsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// ExecuteDefinition is the defer_execute definition a session puts in tools[].
func TestExecuteDefinition(t *testing.T) {
	d := toolsearch.ExecuteDefinition()
	assert.Equal(t, registry.DeferExecuteName, d.Name)
	assert.Equal(t, registry.DeferFalse, d.DeferLoading)
	assert.Nil(t, d.Handler)
	assert.Equal(t, `{"type":"object","properties":{"tool_name":{"type":"string","description":"Exact name of the deferred tool, as listed in the tool_search index."},"params":{"type":"object","description":"The tool's parameters as a JSON object matching the schema tool_search returned; {} if it takes none."}},"required":["tool_name","params"],"additionalProperties":false}`, string(d.RawSchema))
}

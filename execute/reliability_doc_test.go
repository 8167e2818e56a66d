package execute_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/schemacheck"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

// TestReliabilityDocBounds keeps the bounds table of docs/reliability.md
// in step with the constants it lists.
func TestReliabilityDocBounds(t *testing.T) {
	b, err := os.ReadFile("../docs/reliability.md")
	require.NoError(t, err)
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) > 3 {
			rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	require.Equal(t, 5*time.Minute, execute.DefaultCallTimeout)
	for bound, want := range map[string]string{
		"schema nesting depth (JSON objects and arrays)":         textfmt.Thousands(schemacheck.MaxDepth),
		"schema size (compact JSON)":                             textfmt.Thousands(registryx.MaxSchema) + " bytes",
		"self-built schema size":                                 textfmt.Thousands(registryx.MaxSelfBuiltSchema) + " bytes",
		"`$ref` and `$dynamicRef` keywords per schema":           textfmt.Thousands(schemacheck.MaxRefs),
		"subschemas one value is checked against in place":       textfmt.Thousands(schemacheck.MaxInPlace),
		"enum or const integer magnitude":                        "below 2^53",
		"enum, const or bound integer in a schema given as JSON": "64 bits (int64 or uint64)",
		"description":            textfmt.Thousands(registryx.MaxDescription) + " runes (self-built: " + textfmt.Thousands(registryx.MaxSelfBuiltDescription) + ")",
		"call arguments":         textfmt.Thousands(execute.DefaultMaxParamsBytes) + " bytes",
		"call arguments nesting": textfmt.Thousands(execute.DefaultMaxDepth),
		"result text":            textfmt.Thousands(execute.DefaultMaxResultBytes) + " bytes",
		"handler run time":       "5 minutes",
		"validation cache":       textfmt.Thousands(execute.DefaultMaxSchemas) + " schemas",
	} {
		assert.Equal(t, want, rows[bound], bound)
	}
	assert.Equal(t, float64(1<<53), float64(schemacheck.MaxExactInt))
}

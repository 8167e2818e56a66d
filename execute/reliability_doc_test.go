package execute_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/schemacheck"
	"github.com/toolshelf/toolshelf/registry"
)

// thousands formats n with comma separators, as the docs write numbers.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

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
		"schema nesting depth (JSON objects and arrays)":   thousands(schemacheck.MaxDepth),
		"schema size (compact JSON)":                       thousands(registry.DefaultMaxSchema) + " bytes",
		"self-built schema size":                           thousands(registry.DefaultMaxSelfBuiltSchema) + " bytes",
		"`$ref` and `$dynamicRef` keywords per schema":     thousands(schemacheck.MaxRefs),
		"subschemas one value is checked against in place": thousands(schemacheck.MaxInPlace),
		"enum or const integer magnitude":                  "below 2^53",
		"description":                                      thousands(registry.DefaultMaxDescription) + " runes (self-built: " + thousands(registry.DefaultMaxSelfBuiltDescription) + ")",
		"call arguments":                                   thousands(execute.DefaultMaxParamsBytes) + " bytes",
		"call arguments nesting":                           thousands(execute.DefaultMaxDepth),
		"result text":                                      thousands(execute.DefaultMaxResultBytes) + " bytes",
		"handler run time":                                 "5 minutes",
		"validation cache":                                 thousands(execute.DefaultMaxSchemas) + " schemas",
	} {
		assert.Equal(t, want, rows[bound], bound)
	}
	assert.Equal(t, float64(1<<53), float64(schemacheck.MaxExactInt))
}

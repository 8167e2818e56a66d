package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// A tool whose pattern RE2 cannot express loads, and budget lists the
// warning in its text and its JSON.
func TestBudgetListsWarnings(t *testing.T) {
	cat := writeFile(t, "w.json", `{"server":"w","tools":[{"name":"pw","description":"Set a password.","inputSchema":{"type":"object","properties":{"p":{"type":"string","pattern":"^(?=.*\\d).{8,}$"},"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}}]}`)
	code, out, errOut := runCLI("budget", "--catalog", cat, "--encoding", "estimate")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "schema warnings           1 in 1 tools")
	assert.Contains(t, out, `mcp__w__pw: /properties/p: pattern: "^(?=.*\\d).{8,}$": no exact RE2 equivalent: lookahead`)
	code, out, errOut = runCLI("budget", "--catalog", cat, "--encoding", "estimate", "--json")
	require.Equal(t, exitOK, code, errOut)
	var m struct {
		Tools    int           `json:"tools_total"`
		Warnings []warningJSON `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	assert.Equal(t, 1, m.Tools)
	require.Len(t, m.Warnings, 1)
	assert.Equal(t, warningJSON{Tool: "mcp__w__pw", Path: "/properties/p", Keyword: "pattern",
		Reason: `"^(?=.*\\d).{8,}$": no exact RE2 equivalent: lookahead (?= or (?! ); left out of validation and sent as written`}, m.Warnings[0])
}

// wildFiles are the captured tools/list of real MCP servers.
func wildFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "wild", "*.json"))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		if filepath.Base(f) != "servers.json" {
			out = append(out, f)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// toolshelf budget --catalog loads every tool of every captured server.
func TestBudgetLoadsEveryWildCatalog(t *testing.T) {
	for _, f := range wildFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			var doc struct {
				Tools []json.RawMessage `json:"tools"`
			}
			require.NoError(t, json.Unmarshal(raw, &doc))
			code, out, errOut := runCLI("budget", "--catalog", f, "--encoding", "estimate", "--json")
			require.Equal(t, exitOK, code, errOut)
			var m struct {
				Tools    int           `json:"tools_total"`
				Warnings []warningJSON `json:"warnings"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &m))
			assert.Equal(t, len(doc.Tools), m.Tools, "every tool loads")
			c, err := registry.LoadCatalog(f)
			require.NoError(t, err)
			assert.Len(t, m.Warnings, catalogWarnings(c), "budget lists every warning")
			for _, w := range m.Warnings {
				assert.False(t, strings.Contains(w.Reason, "jsonschema") || strings.Contains(w.Reason, "Go struct"), w.Reason)
			}
		})
	}
}

// catalogWarnings counts the warnings of a catalog's tools.
func catalogWarnings(c *registry.Catalog) int {
	n := 0
	for _, t := range c.Tools {
		n += len(t.Warnings)
	}
	return n
}

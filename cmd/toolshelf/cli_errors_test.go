package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var githubCatalog = filepath.Join("..", "..", "testdata", "catalogs", "github.tools.json")

// TestHelpEveryCommand: -h and --help print the command's usage and flags
// to stdout and exit 0; the catalog commands state the catalog policy.
func TestHelpEveryCommand(t *testing.T) {
	for _, cmd := range []string{"budget", "request", "diff", "search", "eval"} {
		for _, flag := range []string{"-h", "--help", "-help"} {
			t.Run(cmd+" "+flag, func(t *testing.T) {
				code, out, errOut := runCLI(cmd, flag)
				assert.Equal(t, exitOK, code)
				assert.Empty(t, errOut)
				assert.True(t, strings.HasPrefix(out, "usage: toolshelf "+cmd+" "), out)
				assert.Contains(t, out, "flags:")
				assert.Contains(t, out, "-json")
				switch cmd {
				case "request", "search", "budget":
					assert.Contains(t, out, "Catalog policy")
					assert.Contains(t, out, "-server NAME")
					assert.Contains(t, out, "-rules FILE")
				}
			})
		}
	}
	// Help after other flags, too.
	code, out, _ := runCLI("request", "--catalog", githubCatalog, "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "usage: toolshelf request")
}

// toolsList is a bare MCP tools/list result: it names no server.
const toolsList = `{"tools":[{"name":"create_issue","description":"Create an issue in a repository.","inputSchema":{"type":"object","properties":{"title":{"type":"string"}}}},
{"name":"list_issues","description":"List the issues of a repository.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"}}}}]}`

// builtins is an Anthropic tools array: built-in tools.
const builtins = `[{"name":"Read","description":"Read a file.","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}]`

// TestToolsListNeedsServer: a tools/list without a server name is an error
// saying to pass --server NAME, in every catalog command; with it, its
// tools are the server's, deferred.
func TestToolsListNeedsServer(t *testing.T) {
	list := writeFile(t, "list.json", toolsList)
	cmds := map[string][]string{
		"request": {"request", "--catalog", list, "--provider", "openai-chat", "--model", "gpt-4o", "--user", "hi", "--json"},
		"search":  {"search", "--catalog", list, "--json", "create issue"},
		"budget":  {"budget", "--catalog", list, "--json"},
	}
	for name, args := range cmds {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "pass --server NAME")
			assert.Contains(t, errOut, list)

			code, out, errOut = runCLI(append(args, "--server", "github")...)
			require.Equal(t, exitOK, code, errOut)
			assert.Contains(t, out, "mcp__github__create_issue")
		})
	}
	// eval reads catalogs the same way (every tool deferred).
	queries := writeFile(t, "q.jsonl", `{"query":"open an issue","expect":["mcp__github__create_issue"]}`+"\n")
	code, out, errOut := runCLI("eval", "--catalog", list, "--queries", queries)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "pass --server NAME")
	code, out, errOut = runCLI("eval", "--catalog", list, "--server", "github", "--queries", queries)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "1 queries over 2 tools")
	// --server with no tools/list to name is a mistake, too.
	code, out, errOut = runCLI("budget", "--catalog", githubCatalog, "--server", "gh")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no catalog is a tools/list")
	// Two tools/lists cannot share one --server.
	other := writeFile(t, "other.json", toolsList)
	code, _, errOut = runCLI("budget", "--catalog", list, "--catalog", other, "--server", "gh")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "names one server")
}

// TestOnePolicy: request, search and budget defer the same tools of the
// same catalogs — the MCP server's — and keep the built-ins resident.
func TestOnePolicy(t *testing.T) {
	read := writeFile(t, "builtins.json", builtins)
	code, out, errOut := runCLI("request", "--catalog", githubCatalog, "--catalog", read, "--provider", "anthropic", "--model", "claude-test", "--user", "hi", "--json")
	require.Equal(t, exitOK, code, errOut)
	var req requestJSON
	require.NoError(t, json.Unmarshal([]byte(out), &req))
	assert.Equal(t, []string{"Read"}, req.Resident)
	require.NotEmpty(t, req.Deferred)
	for _, n := range req.Deferred {
		assert.True(t, strings.HasPrefix(n, "mcp__github__"), n)
	}

	code, out, errOut = runCLI("budget", "--catalog", githubCatalog, "--catalog", read, "--json")
	require.Equal(t, exitOK, code, errOut)
	var bud struct {
		Deferred int `json:"deferred_count"`
		Resident int `json:"resident_count"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &bud))
	assert.Equal(t, len(req.Deferred), bud.Deferred)
	assert.Equal(t, 1, bud.Resident)

	// search finds the deferred tools, never the resident one.
	code, out, errOut = runCLI("search", "--catalog", githubCatalog, "--catalog", read, "--names", "Read,mcp__github__create_issue")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "mcp__github__create_issue")
	code, _, errOut = runCLI("search", "--catalog", read, "read a file")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "nothing to find")

	// --rules changes the policy the same way everywhere.
	rules := writeFile(t, "rules.txt", "NoDefer(mcp__github__create_issue)\n")
	code, out, errOut = runCLI("request", "--catalog", githubCatalog, "--catalog", read, "--rules", rules, "--provider", "anthropic", "--model", "claude-test", "--user", "hi", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &req))
	assert.Contains(t, req.Resident, "mcp__github__create_issue")
	code, out, errOut = runCLI("budget", "--catalog", githubCatalog, "--catalog", read, "--rules", rules, "--json")
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &bud))
	assert.Equal(t, len(req.Deferred), bud.Deferred)
}

// TestSearchBadLimit: an out-of-range --limit is a usage error, with no
// results printed.
func TestSearchBadLimit(t *testing.T) {
	for _, limit := range []string{"-3", "0", "11"} {
		code, out, errOut := runCLI("search", "--catalog", githubCatalog, "--limit", limit, "create issue")
		assert.Equal(t, exitUsage, code, limit)
		assert.Empty(t, out, limit)
		assert.Contains(t, errOut, "--limit "+limit)
	}
	code, out, _ := runCLI("search", "--catalog", githubCatalog, "--limit", "2", "create issue")
	assert.Equal(t, exitOK, code)
	assert.NotEmpty(t, out)
}

// TestEvalNoQueries: an empty query file is a usage error, not recall 0.
func TestEvalNoQueries(t *testing.T) {
	empty := writeFile(t, "empty.jsonl", "")
	code, out, errOut := runCLI("eval", "--catalog", githubCatalog, "--queries", empty)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no queries")
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var fsCatalog = filepath.Join("..", "..", "testdata", "catalogs", "filesystem.tools.json")

func writeRules(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rules.txt")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

// TestRulesEveryKind: --rules takes Deny and Ask next to Defer/NoDefer;
// budget reports what Deny removes and what Ask asks about, and every
// misspelt rule with the names close to it — in budget, request and
// search.
func TestRulesEveryKind(t *testing.T) {
	rules := writeRules(t, "# harness rules\nDeny(mcp__filesystem__write_file)\nAsk(mcp__filesystem__move_file)\n"+
		"Deny(mcp__filesystem__writ_file)\nDeny(edit_file)\nNoDefer(mcp__filesystem__read_fiel)\nDefer(Bash)\n")
	code, out, errOut := runCLI("budget", "--catalog", fsCatalog, harness, "--rules", rules, "--encoding", "estimate", "--json")
	require.Equal(t, exitOK, code, errOut)
	var m struct {
		Denied, Asked, RuleWarnings []string `json:",omitempty"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &struct {
		Denied       *[]string `json:"denied"`
		Asked        *[]string `json:"asked"`
		RuleWarnings *[]string `json:"rule_warnings"`
	}{&m.Denied, &m.Asked, &m.RuleWarnings}))
	assert.Equal(t, []string{"mcp__filesystem__write_file"}, m.Denied)
	assert.Equal(t, []string{"mcp__filesystem__move_file"}, m.Asked)
	assert.Equal(t, []string{
		"Deny(mcp__filesystem__writ_file) selects no tool; did you mean mcp__filesystem__write_file?",
		"Deny(edit_file) selects no tool; did you mean mcp__filesystem__edit_file?",
		"NoDefer(mcp__filesystem__read_fiel) selects no tool; did you mean mcp__filesystem__read_file?",
	}, m.RuleWarnings)

	code, out, errOut = runCLI("budget", "--catalog", fsCatalog, "--rules", rules, "--encoding", "estimate")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "denied by --rules         1 tools, left out of every request: mcp__filesystem__write_file\n")
	assert.Contains(t, out, "rule warning              Deny(edit_file) selects no tool; did you mean mcp__filesystem__edit_file?\n")

	code, out, errOut = runCLI("request", "--catalog", fsCatalog, "--rules", rules, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--user", "hi")
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, out, "write_file\"", "the denied tool is in no request")
	assert.Contains(t, errOut, "toolshelf request: warning: "+rules+": Deny(edit_file) [") // its source is the file
	assert.Contains(t, errOut, "selects no tool; did you mean mcp__filesystem__edit_file?")

	code, _, errOut = runCLI("search", "--catalog", fsCatalog, "--rules", rules, "write", "file")
	assert.Contains(t, errOut, "toolshelf search: warning: "+rules+": Deny(mcp__filesystem__writ_file) selects no tool")
	assert.NotEqual(t, exitUsage, code)

	bad := writeRules(t, "Defer(a)\nForbid(x)\n")
	code, _, errOut = runCLI("budget", "--catalog", fsCatalog, "--rules", bad)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "line 2")
	assert.Contains(t, errOut, "Defer, NoDefer, Allow, Ask or Deny")
}

// TestRequestCheckOK: request --check says so in one line when the body
// passes, and refuses a wrong token bound with the fix.
func TestRequestCheckOK(t *testing.T) {
	code, _, errOut := runCLI("request", "--catalog", fsCatalog, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--user", "hi", "--check")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `^toolshelf request: OK: the anthropic body \(\d+ bytes\) passes the provider rule book\n$`, errOut)

	code, _, errOut = runCLI("request", "--catalog", fsCatalog, "--provider", "openai-responses", "--model", "gpt-5", "--user", "hi", "--check", "--max-tokens", "0")
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, `max_output_tokens`)
	assert.Contains(t, errOut, `below the least value provider "openai-responses" takes, 16`)
}

// TestBudgetLabels: every figure budget prints carries its label and
// unit, and the window of a model the docs name is known.
func TestBudgetLabels(t *testing.T) {
	code, out, errOut := runCLI("budget", "--catalog", fsCatalog, "--model", "claude-sonnet-4-5")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "tokens counted with       claude_estimate (estimates, marked ~)\n")
	assert.Contains(t, out, "(the full names one a line: 441 chars)")
	assert.Contains(t, out, "(deferred − index; 0.34× the index's 20,000-char budget)")
	assert.Regexp(t, `\ntools in every request    \[[^\]]+\] ~[\d,]+ / 200,000 tokens · 0% · free ~[\d,]+ \(window of claude-sonnet-4-5\)\n$`, out)
	code, out, _ = runCLI("budget", "--catalog", fsCatalog, "--model", "gpt-4o-2024-08-06", "--json")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, `"window": 128000`)
	code, out, _ = runCLI("budget", "--catalog", fsCatalog)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "tools in every request    619 tokens · window unknown (pass --window N, or a --model whose window is known)\n")
}

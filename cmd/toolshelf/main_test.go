package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var harness = filepath.Join("..", "..", "testdata", "fixtures", "harness-catalog.json")

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestBudgetJSON(t *testing.T) {
	code, out, errOut := runCLI("budget", "--catalog", harness, "--json", "--encoding", "estimate")
	require.Equal(t, exitOK, code, errOut)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	for _, k := range []string{"tools_total", "chars_total", "deferred_count", "deferred_chars", "resident_chars",
		"names_chars", "index_chars", "net_saving_chars", "net_saving_after_entry_chars", "ratio_all",
		"ratio_deferred", "ratio_longest", "longest_name", "longest_chars", "longest_share", "tokens"} {
		assert.Contains(t, m, k)
	}
	assert.EqualValues(t, 58, m["tools_total"])
	assert.EqualValues(t, 109405, m["chars_total"])
	assert.EqualValues(t, 23, m["deferred_count"])
	assert.EqualValues(t, 41418, m["deferred_chars"])
	assert.EqualValues(t, 248, m["names_chars"])
	assert.Equal(t, "VideoGen", m["longest_name"])
	assert.Equal(t, true, m["tokens"].(map[string]any)["estimate"])
	assert.Nil(t, m["window"], "an unknown window stays null")
	assert.Nil(t, m["free"])
}

func TestBudgetExactTokensAndRules(t *testing.T) {
	rules := writeFile(t, "rules.txt", "# keep the big one\nNoDefer(VideoGen)\n")
	code, out, errOut := runCLI("budget", "--json", "--catalog", harness, "--rules", rules, "--model", "gpt-4o", "--window", "200000")
	require.Equal(t, exitOK, code, errOut)
	var m struct {
		Deferred int  `json:"deferred_count"`
		Window   *int `json:"window"`
		Tokens   struct {
			Estimate bool   `json:"estimate"`
			Encoding string `json:"encoding"`
		} `json:"tokens"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	assert.Equal(t, 22, m.Deferred)
	assert.False(t, m.Tokens.Estimate)
	assert.Equal(t, "o200k_base", m.Tokens.Encoding)
	require.NotNil(t, m.Window)
	assert.Equal(t, 200000, *m.Window)
}

func TestBudgetText(t *testing.T) {
	code, out, _ := runCLI("budget", "--catalog", harness, "--window", "200000")
	require.Equal(t, exitOK, code)
	for _, want := range []string{"deferrable                 23 tools     41,418 chars", "the full names one a line: 248 chars",
		"deferred 167:1", "longest 2,334:1", "VideoGen, 18,671 chars = 45%", "/ 200,000 tokens", "█", "░"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "~", "exact counts carry no estimate marker")

	_, est, _ := runCLI("budget", "--catalog", harness, "--model", "claude-sonnet-4-5", "--window", "200000")
	assert.Contains(t, est, "~")
	assert.Contains(t, est, "▒")
}

func TestBudgetOverWindowIsAFinding(t *testing.T) {
	code, out, _ := runCLI("budget", "--catalog", harness, "--window", "1000", "--color")
	assert.Equal(t, exitFinding, code)
	assert.Contains(t, out, "over budget by")
	assert.Contains(t, out, "\x1b[31m")
}

func TestBudgetSeveralCatalogs(t *testing.T) {
	cat := filepath.Join("..", "..", "testdata", "catalogs")
	code, out, errOut := runCLI("budget", "--json", "--catalog", filepath.Join(cat, "git.tools.json"), filepath.Join(cat, "fetch.tools.json"))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"tools_total"`)
}

func TestBadInput(t *testing.T) {
	notJSON := writeFile(t, "broken.json", "{not json")
	shape := writeFile(t, "shape.json", `{"servers": []}`)
	schema := writeFile(t, "schema.json", `[{"name":"x","description":"d","inputSchema":{"type":"string"}}]`)
	rules := writeFile(t, "rules.txt", "Sometimes(x)\n")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no command", nil, []string{"usage"}},
		{"unknown command", []string{"frobnicate"}, []string{`"frobnicate"`}},
		{"no catalog", []string{"budget"}, []string{"no catalog"}},
		{"not JSON", []string{"budget", "--catalog", notJSON}, []string{notJSON, "not valid JSON"}},
		{"unknown shape", []string{"budget", "--catalog", shape}, []string{shape, "unknown shape"}},
		{"non-object schema", []string{"budget", "--catalog", schema}, []string{schema, `"object"`}},
		{"unknown encoding", []string{"budget", "--catalog", harness, "--encoding", "p50k"}, []string{`"p50k"`, "o200k_base"}},
		{"negative window", []string{"budget", "--catalog", harness, "--window", "-5"}, []string{"--window -5"}},
		{"bad rule", []string{"budget", "--catalog", harness, "--rules", rules}, []string{rules, "line 1"}},
		{"missing file", []string{"budget", "--catalog", "nope.json"}, []string{"nope.json"}},
		{"unknown flag", []string{"budget", "--frob"}, []string{"frob"}},
		{"both encoding and model", []string{"budget", "--catalog", harness, "--encoding", "estimate", "--model", "gpt-4o"}, []string{"not both"}},
		{"diff one file", []string{"diff", harness}, []string{"two files"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out, "nothing written on bad input")
			if tt.args != nil {
				assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			}
			for _, w := range tt.want {
				assert.Contains(t, errOut, w)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	a := writeFile(t, "a.json", `{"model":"m","tools":[{"name":"Read","description":"reads"}],"messages":[]}`)
	b := writeFile(t, "b.json", `{"model":"m","tools":[{"name":"Read","description":"writes"}],"messages":[]}`)
	code, out, _ := runCLI("diff", a, b)
	assert.Equal(t, exitFinding, code)
	assert.Contains(t, out, "tools[0].description")

	code, out, _ = runCLI("diff", "--json", a, b)
	assert.Equal(t, exitFinding, code)
	var d diffJSON
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.False(t, d.Equal)
	require.NotNil(t, d.Offset)
	assert.Equal(t, strings.Index(string(readAll(t, a)), "reads"), *d.Offset)
	assert.Equal(t, "tools[0].description", d.Path)

	code, out, _ = runCLI("diff", a, a)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "identical")
}

func readAll(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI("help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "budget --catalog")
}

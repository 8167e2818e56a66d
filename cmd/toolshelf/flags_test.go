package main

import (
	"bytes"
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCatalogTakesSeveralFiles: `toolshelf search --catalog A.json B.json
// "query"` searched A only and took B for a query word (issue 24); every
// command's --catalog now takes the files that follow it.
func TestCatalogTakesSeveralFiles(t *testing.T) {
	a := "../../testdata/catalogs/github.tools.json"
	b := "../../testdata/catalogs/git.tools.json"
	var out, errb bytes.Buffer
	got := runSearch([]string{"--catalog", a, b, "--json", "git", "log"}, &out, &errb)
	require.Equal(t, exitOK, got, errb.String())
	assert.Contains(t, out.String(), `"mcp__git__git_log"`, "the second file's tools are searched")
	assert.NotContains(t, out.String(), "git.tools.json", "the second file is no query word")

	// The inline form and a flag after the files work the same way.
	out.Reset()
	got = runSearch([]string{"--catalog=" + a, b, "--names", "mcp__git__git_log"}, &out, &errb)
	require.Equal(t, exitOK, got, errb.String())
	assert.Contains(t, out.String(), "## mcp__git__git_log")
}

func TestTakeFilesStopsAtNonFiles(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var catalogs files
	fs.Var(&catalogs, "catalog", "")
	a := "../../testdata/catalogs/github.tools.json"
	assert.Equal(t,
		[]string{"--catalog", a, "--catalog=" + a, "no-such-file.json", "--", a},
		takeFiles(fs, []string{"--catalog", a, a, "no-such-file.json", "--", a}))
	assert.Equal(t, []string{"--catalog"}, takeFiles(fs, []string{"--catalog"}), "a missing value is left for the flag package to report")
}

// TestUsageLinesListEveryFlag: per-command usage lines left out --check,
// --body, --max-tokens, --explain and --baseline (issue 24). Each command's
// -h output lists its flags; its usage line must name every one of them.
func TestUsageLinesListEveryFlag(t *testing.T) {
	run := map[string]func([]string, *bytes.Buffer, *bytes.Buffer) int{
		"budget":  func(a []string, o, e *bytes.Buffer) int { return runBudget(a, o, e) },
		"request": func(a []string, o, e *bytes.Buffer) int { return runRequest(a, o, e) },
		"diff":    func(a []string, o, e *bytes.Buffer) int { return runDiff(a, o, e) },
		"search":  func(a []string, o, e *bytes.Buffer) int { return runSearch(a, o, e) },
		"eval":    func(a []string, o, e *bytes.Buffer) int { return runEval(a, o, e) },
	}
	flagLine := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	for name, f := range run {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, exitOK, f([]string{"--help"}, &out, &errb), errb.String())
			synopsis, _, _ := strings.Cut(synopses[name], "\n\n")
			flags := flagLine.FindAllStringSubmatch(out.String(), -1)
			require.NotEmpty(t, flags)
			for _, m := range flags {
				assert.Contains(t, synopsis, "--"+m[1], "usage line of %s", name)
			}
			assert.NotContains(t, out.String(), "only when given (default", "self-contradicting help")
		})
	}
}

// TestUsageLinesNameEveryProvider: the request usage lines (toolshelf help
// and toolshelf help request) list every provider --provider takes; they
// left out gemini.
func TestUsageLinesNameEveryProvider(t *testing.T) {
	var accepted []string
	for _, p := range []string{"openai-chat", "openai-responses", "anthropic", "gemini", "vertex", "bedrock"} {
		if providerError(p) == nil {
			accepted = append(accepted, p)
		}
	}
	require.Len(t, accepted, 4)
	want := "--provider " + strings.Join(accepted, "|") + " "
	assert.Contains(t, usage, want)
	assert.Contains(t, synopses["request"], want)
}

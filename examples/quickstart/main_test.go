package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

func runQuickstart(t *testing.T, o options) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, run(&buf, o))
	return buf.String()
}

// TestOutputGolden pins the README's main command's output: it must be
// deterministic (two runs, same bytes) and is kept in testdata.
func TestOutputGolden(t *testing.T) {
	o := options{Provider: request.OpenAIChat, Model: "gpt-4o", Window: 128000}
	out := runQuickstart(t, o)
	assert.Equal(t, out, runQuickstart(t, o), "two runs differ")
	// -update (requesttest's flag) rewrites the file; then copy it into
	// README.md's "Quickstart output" section.
	requesttest.Golden(t, filepath.Join("testdata", "output.golden"), []byte(out))
}

// TestPrefixSharedEveryTurn checks the product's promise on every
// provider: each request shares the whole prefix with the one before, the
// bodies written with -out are the requests, and the story happened (a
// search loaded the tool, the deferred call passed the Ask rule and the
// hook, the self-built tool was found and called).
func TestPrefixSharedEveryTurn(t *testing.T) {
	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic} {
		t.Run(string(p), func(t *testing.T) {
			dir := t.TempDir()
			out := runQuickstart(t, options{Provider: p, Model: "gpt-4o", Window: 128000, Out: dir})

			files, err := filepath.Glob(filepath.Join(dir, "turn-*.json"))
			require.NoError(t, err)
			require.Len(t, files, len(script))
			var bodies [][]byte
			for _, f := range files {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				require.True(t, json.Valid(b), f)
				bodies = append(bodies, b)
			}
			requesttest.AssertStablePrefix(t, bodies...)
			// Every request is one the provider accepts: descriptions
			// within OpenAI's 1,024 characters (the 249-tool index rides in
			// the system part there), max_tokens for Anthropic, names valid.
			for i, b := range bodies {
				assert.True(t, requesttest.CheckProviderRules(t, p, b), "turn %d", i+1)
			}
			prefix := requesttest.PrefixLen(bodies[0])
			require.Positive(t, prefix)

			// Every request after the first reports the whole prefix shared,
			// and the figure it prints is the real one.
			shares := regexp.MustCompile(`(?m)^  prefix  ([\d,]+) bytes; shares ([\d,]+) bytes with request (\d+): the whole prefix`).FindAllStringSubmatch(out, -1)
			require.Len(t, shares, len(bodies)-1, out)
			for i, m := range shares {
				assert.Equal(t, thousands(prefix), m[1])
				assert.Equal(t, thousands(sharedPrefix(bodies[i], bodies[i+1])), m[2])
				assert.GreaterOrEqual(t, sharedPrefix(bodies[i], bodies[i+1]), prefix)
			}
			assert.NotContains(t, out, "PREFIX BROKEN")
			assert.Contains(t, out, fmt.Sprintf("byte-identical in %d of %d requests", len(bodies), len(bodies)))

			// The deferred tool was found, approved, rewritten and run.
			assert.Regexp(t, `schemas loaded: mcp__github__create_pull_request\b`, out)
			assert.Contains(t, out, "approved mcp__github__create_pull_request by Ask(mcp__github__create_*) (via defer_execute)")
			assert.Contains(t, out, "rewritten mcp__github__create_pull_request by hook draft-first")
			assert.Contains(t, out, `"draft":true`, "the hook's rewrite reached the handler")
			// The self-built tool was announced, loaded and called.
			assert.Contains(t, string(bodies[4]), "<new_deferred_tool>")
			assert.NotContains(t, string(bodies[3]), "count_todos:")
			assert.Contains(t, out, "schemas loaded: count_todos")
			assert.Contains(t, out, `result  {"todos":17,"files":9}`)
			// Deferred schemas are not in the prefix; their names are.
			pre := string(bodies[0][:prefix])
			assert.Contains(t, pre, "mcp__github__create_pull_request")
			assert.NotContains(t, pre, "Allow maintainer edits", "a deferred schema leaked into the prefix")
		})
	}
}

func TestEstimatedModelIsMarked(t *testing.T) {
	out := runQuickstart(t, options{Provider: request.Anthropic, Model: "claude-sonnet-4-5", Window: 200000})
	assert.Contains(t, out, "tokens estimated (~)")
	assert.Regexp(t, `request 1  [\d,]+ bytes · ~[\d,]+ tokens`, out)
	assert.NotContains(t, out, "o200k_base")
}

func TestBadOptions(t *testing.T) {
	for name, o := range map[string]options{
		"provider": {Provider: "gemini", Model: "gpt-4o"},
		"model":    {Provider: request.OpenAIChat},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			err := run(&buf, o)
			require.Error(t, err)
			assert.Empty(t, buf.String(), "nothing is printed before the session exists")
		})
	}
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

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

	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
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
	// TOOLSHELF_UPDATE=1 (goldenfile.UpdateEnv) rewrites the file; then copy it into
	// docs/quickstart.md's "Output" section.
	goldenfile.Golden(t, filepath.Join("testdata", "output.golden"), []byte(out))
}

// TestPrefixSharedEveryTurn checks the product's promise on every
// provider: each request shares the whole prefix with the one before, the
// bodies written with -out are the requests, and the story happened (a
// search loaded the tool, the deferred call passed the Ask rule and the
// hook, the self-built tool was found and called).
func TestPrefixSharedEveryTurn(t *testing.T) {
	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini} {
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
			prefix := wire.PrefixLen(bodies[0])
			require.Positive(t, prefix)
			if p == request.OpenAIChat {
				// The example prints len(Session.Prefix()), which stops
				// before the "," between the system message and the first
				// history message that wire.PrefixLen counts.
				require.Equal(t, byte(','), bodies[0][prefix-1])
				prefix--
			}

			// Every request after the first reports the whole prefix shared,
			// and the figure it prints is the real one.
			shares := regexp.MustCompile(`(?m)^  prefix  ([\d,]+) bytes; shares ([\d,]+) bytes with request (\d+): the whole prefix`).FindAllStringSubmatch(out, -1)
			require.Len(t, shares, len(bodies)-1, out)
			for i, m := range shares {
				assert.Equal(t, textfmt.Thousands(prefix), m[1])
				assert.Equal(t, textfmt.Thousands(sharedPrefix(bodies[i], bodies[i+1])), m[2])
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
			// Deferred schemas are not in the prefix; their names are, by
			// short name under the server's header.
			pre := string(bodies[0][:prefix])
			assert.Regexp(t, `mcp__github: [^\\]*\\n(  [a-z_]+\\n)*  create_pull_request\\n`, pre)
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
		"provider": {Provider: "vertex", Model: "gpt-4o"},
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

// TestLedger: -ledger prints the usage ledger of the decoded replies; its
// saving is the run's own all-resident figure, the prefix is read from the
// cache from the second request on, and without -ledger nothing changes.
func TestLedger(t *testing.T) {
	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini} {
		t.Run(string(p), func(t *testing.T) {
			o := options{Provider: p, Model: "gpt-4o", Window: 128000}
			plain := runQuickstart(t, o)
			o.Ledger = true
			out := runQuickstart(t, o)
			require.True(t, strings.HasPrefix(out, plain), "-ledger only appends")
			ledger := out[len(plain):]
			require.Contains(t, ledger, "Usage ledger")

			saved := regexp.MustCompile(`more tokens: ([0-9,]+) over these 7 requests`).FindStringSubmatch(plain)
			require.Len(t, saved, 2)
			assert.Contains(t, ledger, "deferral saved "+saved[1]+" input tokens over 7 requests")

			rows := regexp.MustCompile(`(?m)^  ([1-7]) +([0-9,]+) +([0-9,]+) +([0-9,]+) `).FindAllStringSubmatch(ledger, -1)
			require.Len(t, rows, 7)
			assert.Equal(t, "0", rows[0][3], "the first request reads nothing from the cache")
			for _, r := range rows[1:] {
				assert.NotEqual(t, "0", r[3], "request %s reads the prefix from the cache", r[1])
			}
		})
	}
}

// TestLedgerDoc keeps docs/usage-ledger.md's quickstart block identical
// to a run with -ledger; with TOOLSHELF_UPDATE=1 it rewrites it.
func TestLedgerDoc(t *testing.T) {
	out := runQuickstart(t, options{Provider: request.OpenAIChat, Model: "gpt-4o", Window: 128000, Ledger: true})
	block := out[strings.Index(out, "Usage ledger"):]
	path := filepath.Join("..", "..", "docs", "usage-ledger.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(doc)
	const marker = "<!-- ledger:quickstart -->\n```text\n"
	i := strings.Index(text, marker)
	require.NotEqual(t, -1, i, "docs/usage-ledger.md has no quickstart block")
	start := i + len(marker)
	end := start + strings.Index(text[start:], "```\n")
	if goldenfile.Updating() {
		require.NoError(t, os.WriteFile(path, []byte(text[:start]+block+text[end:]), 0o644))
		return
	}
	assert.Equal(t, block, text[start:end], "docs/usage-ledger.md's quickstart block differs from a run; TOOLSHELF_UPDATE=1 go test ./examples/quickstart")
}

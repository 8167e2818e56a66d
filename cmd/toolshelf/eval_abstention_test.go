package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
)

// TestRunEvalAbstention: rows with "expect": [] are reported in an
// abstention object, beside the recall of the other rows, with what the
// library's Eval computes.
func TestRunEvalAbstention(t *testing.T) {
	rows := `{"id": "n1", "query": "good night", "expect": []}
{"id": "n2", "query": "晚安", "expect": []}
{"id": "n3", "query": "book a flight from Paris to Rome", "expect": []}
{"id": "p1", "query": "take a screenshot of the page", "expect": ["mcp__playwright__browser_take_screenshot"]}
`
	path := filepath.Join(t.TempDir(), "q.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(rows), 0o644))
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, runEval(append(catalogArgs(t), "--queries", path, "--json"), &out, &errb), errb.String())
	var got toolsearch.Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.NotNil(t, got.Abstention)
	assert.Equal(t, 3, got.Abstention.Queries)
	assert.Equal(t, 1, got.Queries, "recall counts the positive row only")

	paths, err := filepath.Glob("../../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	plan, err := toolsearch.PlanCatalogs(paths...)
	require.NoError(t, err)
	s, err := toolsearch.New(plan, nil)
	require.NoError(t, err)
	qs, err := toolsearch.ReadQueries(strings.NewReader(rows))
	require.NoError(t, err)
	want, err := toolsearch.Eval(context.Background(), s, qs)
	require.NoError(t, err)
	assert.Equal(t, want.Abstention.Abstained, got.Abstention.Abstained)
	assert.Positive(t, got.Abstention.Abstained)

	out.Reset()
	require.Equal(t, exitOK, runEval(append(catalogArgs(t), "--queries", path), &out, &errb), errb.String())
	assert.Contains(t, out.String(), "no-match queries n=3")
	assert.Contains(t, out.String(), "not-sure ")
	// Config.Preload's outcome (issue 38): what Eval counts, printed.
	assert.Equal(t, want.Preloaded, got.Preloaded)
	assert.Equal(t, want.PreloadRight, got.PreloadRight)
	assert.Equal(t, want.Abstention.Preloaded, got.Abstention.Preloaded)
	assert.Contains(t, out.String(), "preloaded ")
	// What the model sees: the positive row's answer shows the tool, and
	// its size is counted.
	assert.Equal(t, 1.0, got.Visible)
	assert.Positive(t, got.MeanTokens)
	assert.Contains(t, out.String(), "visible 1.000  tokens/answer ")
}

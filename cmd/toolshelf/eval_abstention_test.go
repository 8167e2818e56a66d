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

// TestRunEvalSizes: --sizes N reports the figures per catalog size, the
// same counts toolsearch.EvalSizes computes for the same draw.
func TestRunEvalSizes(t *testing.T) {
	rows := `{"id": "n1", "query": "good night", "expect": []}
{"id": "p1", "query": "what time is it in Tokyo", "expect": ["mcp__time__get_current_time"]}
`
	path := filepath.Join(t.TempDir(), "q.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(rows), 0o644))
	paths, err := filepath.Glob("../../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, runEval(append([]string{"--queries", path, "--sizes", "8", "--catalog"}, paths...), &out, &errb), errb.String())
	ranges, err := toolsearch.EvalSizes(context.Background(), paths, []toolsearch.EvalQuery{
		{ID: "n1", Query: []string{"good night"}, Expect: []string{}},
		{ID: "p1", Query: []string{"what time is it in Tokyo"}, Expect: []string{"mcp__time__get_current_time"}},
	}, 8, 47)
	require.NoError(t, err)
	require.NotEmpty(t, ranges)
	assert.Contains(t, out.String(), "by catalog size (8 unions of 2–4 catalogs")
	for _, r := range ranges {
		assert.Contains(t, out.String(), r.Label(), out.String())
		assert.Contains(t, out.String(), "no-match n=", out.String())
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/search"
)

func catalogArgs(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("../../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	var args []string
	for _, p := range paths {
		args = append(args, "--catalog", p)
	}
	return args
}

func TestRunSearch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		want   string
	}{
		{"query", []string{"take", "a", "screenshot"}, exitOK, "## mcp__playwright__browser_take_screenshot"},
		{"names", []string{"--names", "mcp__git__git_log"}, exitOK, "## mcp__git__git_log"},
		{"nothing matched", []string{"zzqx"}, exitFinding, "Nothing matched"},
		{"json", []string{"--json", "git", "status"}, exitOK, `"hits"`},
		{"no query", nil, exitUsage, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			got := runSearch(append(catalogArgs(t), tc.args...), &out, &errb)
			assert.Equal(t, tc.status, got, errb.String())
			assert.Contains(t, out.String(), tc.want)
		})
	}
	var out bytes.Buffer
	assert.Equal(t, exitUsage, runSearch([]string{"x"}, &out, &out), "a catalog is required")
}

func TestRunEval(t *testing.T) {
	var out, errb bytes.Buffer
	args := append(catalogArgs(t), "--queries", "../../testdata/queries/dev.jsonl", "--json")
	require.Equal(t, exitOK, runEval(args, &out, &errb), errb.String())
	var rep map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	for _, k := range []string{"queries", "recall_at_1", "recall_at_5", "mrr", "mean_schemas_loaded", "misses", "by_lang", "by_kind"} {
		assert.Contains(t, rep, k)
	}
	assert.EqualValues(t, 120, rep["queries"])

	out.Reset()
	args = append(catalogArgs(t), "--queries", "../../testdata/queries/dev.jsonl", "--min-recall5", "0.999")
	assert.Equal(t, exitFinding, runEval(args, &out, &errb), "below the bar is a finding")
	assert.Contains(t, out.String(), "recall@5")
	assert.Equal(t, exitUsage, runEval([]string{"--queries", "x.jsonl"}, &out, &errb))
}

// TestRunEvalBaseline checks that --baseline bm25 reports, next to
// tool_search, exactly what the reference BM25 scores on the same queries.
func TestRunEvalBaseline(t *testing.T) {
	var out, errb bytes.Buffer
	args := append(catalogArgs(t), "--queries", "../../testdata/queries/dev.jsonl", "--baseline", "bm25", "--json")
	require.Equal(t, exitOK, runEval(args, &out, &errb), errb.String())
	var got struct {
		toolsearch.Report
		Baseline *toolsearch.Report `json:"baseline"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.NotNil(t, got.Baseline, "the baseline object")

	paths, err := filepath.Glob("../../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	plan, err := toolsearch.PlanCatalogs(paths...)
	require.NoError(t, err)
	f, err := os.Open("../../testdata/queries/dev.jsonl")
	require.NoError(t, err)
	qs, err := toolsearch.ReadQueries(f)
	f.Close()
	require.NoError(t, err)
	idx, err := toolsearch.PlainBM25{}.Index(context.Background(), plan.Deferred())
	require.NoError(t, err)
	want, err := toolsearch.EvalIndex(context.Background(), idx, 5, qs)
	require.NoError(t, err)
	assert.Equal(t, want.Figures, got.Baseline.Figures)
	assert.Equal(t, want.ByHalf[toolsearch.HalfCheck], got.Baseline.ByHalf[toolsearch.HalfCheck])
	assert.Greater(t, got.RecallAt1, got.Baseline.RecallAt1, "tool_search ahead of the baseline on dev")

	out.Reset()
	args = append(catalogArgs(t), "--queries", "../../testdata/queries/dev.jsonl", "--baseline", "bm25")
	require.Equal(t, exitOK, runEval(args, &out, &errb), errb.String())
	assert.Contains(t, out.String(), "bm25 half=check")
	assert.Equal(t, exitUsage, runEval(append(catalogArgs(t), "--queries", "../../testdata/queries/dev.jsonl", "--baseline", "tfidf"), &out, &errb))
}

// TestRunSearchExplain: --explain prints the library's explanation of the
// tool, whose score is the one the ranking gives it.
func TestRunSearchExplain(t *testing.T) {
	var out, errb bytes.Buffer
	args := append(catalogArgs(t), "--explain", "mcp__github__create_issue", "--json", "create an issue on GitHub")
	require.Equal(t, exitOK, runSearch(args, &out, &errb), errb.String())
	var e toolsearch.Explanation
	require.NoError(t, json.Unmarshal(out.Bytes(), &e))
	assert.Equal(t, "mcp__github__create_issue", e.Tool)

	out.Reset()
	args = append(catalogArgs(t), "--json", "--limit", "10", "create an issue on GitHub")
	require.Equal(t, exitOK, runSearch(args, &out, &errb), errb.String())
	var res struct {
		Hits []search.Hit `json:"hits"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	found := false
	for _, h := range res.Hits {
		if h.Name == e.Tool {
			found = true
			assert.InDelta(t, h.Score, e.Score, 1e-3*h.Score)
		}
	}
	assert.True(t, found, "the explained tool is among the hits")

	out.Reset()
	args = append(catalogArgs(t), "--explain", "mcp__github__create_issue", "create an issue on GitHub")
	require.Equal(t, exitOK, runSearch(args, &out, &errb), errb.String())
	assert.Contains(t, out.String(), "mcp__github__create_issue: score ")
	assert.Contains(t, out.String(), "name coverage")

	assert.Equal(t, exitUsage, runSearch(append(catalogArgs(t), "--explain", "nope", "x"), &out, &errb))
	assert.Contains(t, errb.String(), `no searchable tool is named "nope"`)
	assert.Equal(t, exitUsage, runSearch(append(catalogArgs(t), "--explain", "mcp__github__create_issue"), &out, &errb))
}

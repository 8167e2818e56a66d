package toolsearch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCutRequired(t *testing.T) {
	for _, tc := range []struct {
		chunk, word string
		ok          bool
	}{
		{"+github", "github", true},
		{"+截图", "截图", true},
		{"+Émile", "Émile", true},
		{"+4915123577723", "+4915123577723", false},
		{"+1", "+1", false},
		{"+", "+", false},
		{"++x", "++x", false},
		{"C++", "C++", false},
		{"a+b", "a+b", false},
		{"+-x", "+-x", false},
		{"+_x", "+_x", false},
	} {
		word, ok := cutRequired(tc.chunk)
		assert.Equal(t, tc.ok, ok, tc.chunk)
		assert.Equal(t, tc.word, word, tc.chunk)
	}
}

// operatorFree is what a query says without its operators: the names
// after "select:" as words, and every "+" a space.
func operatorFree(queries []string) []string {
	out := make([]string, len(queries))
	for i, q := range queries {
		if rest, ok := cutSelect(q); ok {
			q = strings.ReplaceAll(rest, ",", " ")
		}
		out[i] = strings.ReplaceAll(q, "+", " ")
	}
	return out
}

// TestOperatorsNeverEmpty: ordinary text that looks like an operator, and
// operators that cannot be met, never empty an answer that the same words
// without operators would fill.
func TestOperatorsNeverEmpty(t *testing.T) {
	s := devSearcher(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		queries []string
		note    string // a line the answer must carry
	}{
		{"phone number", []string{"send a message to +4915123577723"}, ""},
		{"phone number with spaces", []string{"call +1 555 0100 and create an issue"}, ""},
		{"C++", []string{"search C++ code in the repository"}, ""},
		{"a+b", []string{"a+b commit changes"}, ""},
		{"lone plus", []string{"+", "list branches"}, ""},
		{"double plus", []string{"++x take screenshot"}, ""},
		{"required word no tool has", []string{"+zzqx create pull request"}, `No tool mentions "zzqx"; showing the best matches without it.`},
		{"select known and unknown", []string{"select:mcp__github__create_issue,no_such_tool"}, `No deferred tool is named "no_such_tool"`},
		{"select literal words", []string{"select: the branch to merge"}, "No deferred tool is named"},
		{"Chinese phone number", []string{"给 +8613800138000 发消息 截图"}, ""},
		{"Chinese required word", []string{"+截图 网页"}, ""},
		{"Chinese required word no tool has", []string{"+龘龘 创建拉取请求"}, `No tool mentions "龘龘"`},
		{"Chinese select mix", []string{"select:mcp__github__create_issue,不存在的工具"}, `No deferred tool is named "不存在的工具"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, err := s.Search(ctx, operatorFree(tc.queries), 5, Scope{})
			require.NoError(t, err)
			require.NotEmpty(t, plain, "the operator-free query must have hits for the case to mean anything")
			args, err := json.Marshal(map[string]any{"queries": tc.queries})
			require.NoError(t, err)
			r := s.Call(ctx, args, Scope{Loaded: NewLoadedSet()})
			assert.False(t, r.IsError, r.Text)
			assert.NotEmpty(t, fuzzNamed(r.Text), "no tool in the answer:\n%s", r.Text)
			if _, sel := cutSelect(tc.queries[0]); !sel {
				assert.NotContains(t, r.Text, "Nothing matched")
			}
			if tc.note != "" {
				assert.Contains(t, r.Text, tc.note)
			}
		})
	}
}

// tinySearcher searches two tools whose words share nothing.
func tinySearcher(t *testing.T) *Searcher {
	path := filepath.Join(t.TempDir(), "c.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"catalog": "built-in", "tools": [
		{"name": "frob", "description": "Frobnicate widgets.", "inputSchema": {"type": "object"}},
		{"name": "polish", "description": "Polish gadgets.", "inputSchema": {"type": "object"}}]}`), 0o644))
	plan, err := PlanCatalogs(path)
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)
	return s
}

// TestRequiredWordsNeverTogether: two required words that tools mention,
// but no one tool both, are relaxed together, and the answer says so.
func TestRequiredWordsNeverTogether(t *testing.T) {
	r := call(t, tinySearcher(t), `{"queries": ["+widgets +gadgets"]}`, Scope{Loaded: NewLoadedSet()})
	assert.False(t, r.IsError, r.Text)
	assert.Contains(t, r.Text, `No tool mentions "widgets", "gadgets" together; showing the best matches without requiring them.`)
	assert.ElementsMatch(t, []string{"frob", "polish"}, fuzzNamed(r.Text))
}

// TestPhoneNumberIsNotAnOperator: the number is not a required word, so
// the ranking is that of the words around it.
func TestPhoneNumberIsNotAnOperator(t *testing.T) {
	s := devSearcher(t)
	ctx := context.Background()
	with, err := s.Search(ctx, []string{"create an issue for +4915123577723"}, 5, Scope{})
	require.NoError(t, err)
	without, err := s.Search(ctx, []string{"create an issue for"}, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, without)
	assert.Equal(t, without, with)
}

// TestRequiredWordStillFilters: a "+word" that tools mention keeps its
// meaning: every hit contains it.
func TestRequiredWordStillFilters(t *testing.T) {
	s := devSearcher(t)
	hits, err := s.Search(context.Background(), []string{"+kubernetes list"}, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	for _, h := range hits {
		assert.Contains(t, h.Name, "kubernetes")
	}
}

// TestEmptySelect: "select:" alone is searched as the word "select" where
// tools mention it, and refused with a how-to only where nothing matches.
func TestEmptySelect(t *testing.T) {
	r := call(t, devSearcher(t), `{"queries": ["select:"]}`, Scope{Loaded: NewLoadedSet()})
	assert.False(t, r.IsError, r.Text)
	assert.Contains(t, r.Text, "mcp__playwright__browser_select_option")

	s := tinySearcher(t)
	r = call(t, s, `{"queries": ["select:"]}`, Scope{})
	assert.True(t, r.IsError)
	assert.Contains(t, r.Text, "select: needs names")
}

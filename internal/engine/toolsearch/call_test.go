package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

func call(t *testing.T, s *Searcher, args string, sc Scope) registry.Result {
	t.Helper()
	var r registry.Result
	var loaded []string
	require.NotPanics(t, func() { r, loaded = s.Load(context.Background(), []byte(args), sc) })
	if set, ok := sc.Loaded.(*LoadedSet); ok {
		// The test keeps the loaded set, as a session does.
		for _, n := range loaded {
			set.Add(n)
		}
	}
	return r
}

func TestCallBadInput(t *testing.T) {
	s := devSearcher(t)
	long := strings.Repeat("word ", 2000)
	names := `"` + strings.Repeat(`mcp__git__git_status","`, 999) + `mcp__git__git_status"`
	for _, tc := range []struct {
		name, args, want string
	}{
		{"empty", ``, "arguments are empty"},
		{"malformed JSON", `{"queries": [`, "one JSON object"},
		{"not an object", `["x"]`, "one JSON object"},
		{"neither", `{}`, `give "queries"`},
		{"both", `{"queries":["x"],"tool_names":["y"]}`, "not both"},
		{"wrong type", `{"queries": 42}`, `"queries" must be an array of strings`},
		{"wrong element type", `{"tool_names": [1, 2]}`, `"tool_names" must be an array of strings`},
		{"empty array", `{"queries": []}`, "empty array"},
		{"empty string", `{"queries": [""]}`, "queries[0] is empty"},
		{"whitespace only", `{"queries": ["  \t\n "]}`, "queries[0] is empty"},
		{"very long query", `{"queries": ["` + long + `"]}`, "10000 characters long"},
		{"invalid UTF-8", "{\"queries\": [\"\xff\xfe\"]}", "not valid UTF-8"},
		{"a thousand names", `{"tool_names": [` + names + `]}`, "has 1000 names"},
		{"unknown key", `{"query": "x"}`, `unknown parameter "query"`},
		{"bad limit", `{"queries": ["x"], "limit": 0}`, `"limit" must be a whole number`},
		{"fractional limit", `{"queries": ["x"], "limit": 2.5}`, `"limit" must be a whole number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, s, tc.args, Scope{})
			assert.True(t, r.IsError)
			assert.Contains(t, r.Text, tc.want)
			assert.Contains(t, r.Text, "Invalid tool_search call")
		})
	}
	t.Run("regex metacharacters are just text", func(t *testing.T) {
		r := call(t, s, `{"queries": [".*[(?<=\\d)+ ^$|"]}`, Scope{})
		assert.False(t, r.IsError)
		assert.Contains(t, r.Text, "Nothing matched")
	})
}

func TestCallExact(t *testing.T) {
	s := devSearcher(t)
	loaded := NewLoadedSet()
	sc := Scope{Loaded: loaded}
	r := call(t, s, `{"tool_names": ["mcp__github__create_pull_request", "mcp__git__git_status"]}`, sc)
	require.False(t, r.IsError, r.Text)
	assert.Contains(t, r.Text, "Loaded 2 tools")
	assert.Contains(t, r.Text, "## mcp__github__create_pull_request\n")
	assert.Contains(t, r.Text, "- owner (string, required): Repository owner")
	assert.Equal(t, []string{"mcp__git__git_status", "mcp__github__create_pull_request"}, loaded.Names())

	again := call(t, s, `{"queries": ["select:mcp__git__git_status"]}`, sc)
	assert.False(t, again.IsError)
	assert.Contains(t, again.Text, "mcp__git__git_status is already loaded")
	assert.NotContains(t, again.Text, "Parameters:", "re-loading is a no-op")

	loaded.Forget("mcp__git__git_status")
	after := call(t, s, `{"tool_names": "mcp__git__git_status"}`, sc)
	assert.Contains(t, after.Text, "## mcp__git__git_status", "a forgotten tool loads again")
}

func TestCallFuzzyLimits(t *testing.T) {
	s := devSearcher(t)
	r := call(t, s, `{"queries": ["pull request"], "limit": 10}`, Scope{Loaded: NewLoadedSet()})
	require.False(t, r.IsError)
	assert.LessOrEqual(t, strings.Count(r.Text, "\n## "), DefaultMaxFullSchemas)
	assert.Contains(t, r.Text, "Other candidates (not loaded), best first:")
	assert.NotContains(t, r.Text, "More candidates", "a call with a limit gets that many results, no deeper list")
	assert.Contains(t, r.Text, `{"tool_names": ["<name>"]}`)
	assert.Contains(t, r.Text, "10 matches.")

	// Without a limit, further candidates follow by name within the list
	// budget.
	r = call(t, s, `{"queries": ["pull request"]}`, Scope{Loaded: NewLoadedSet()})
	assert.Contains(t, r.Text, "More candidates (not loaded): ")
	i := strings.Index(r.Text, "Other candidates")
	j := strings.Index(r.Text, "Load one by name")
	require.True(t, i > 0 && j > i, r.Text)
	assert.LessOrEqual(t, j-i, DefaultListBudget+200, "the list stays within its budget (plus its headers)")
	off, err := New(s.plan, &search.Options{ListBudget: -1})
	require.NoError(t, err)
	assert.NotContains(t, call(t, off, `{"queries": ["pull request"]}`, Scope{Loaded: NewLoadedSet()}).Text, "More candidates")

	big, err := New(s.plan, &search.Options{ResponseCap: 1500})
	require.NoError(t, err)
	capped := call(t, big, `{"queries": ["pull request"], "limit": 10}`, Scope{})
	assert.LessOrEqual(t, len(capped.Text), 1500)
	assert.Contains(t, capped.Text, "mcp__github__")
}

func TestCallLadder(t *testing.T) {
	s := devSearcher(t)
	t.Run("exact miss falls back to fuzzy", func(t *testing.T) {
		r := call(t, s, `{"tool_names": ["take_screenshot"]}`, Scope{})
		assert.False(t, r.IsError)
		assert.Contains(t, r.Text, `No deferred tool is named "take_screenshot"`)
		assert.Contains(t, r.Text, "Closest matches:")
		assert.Contains(t, r.Text, "## mcp__playwright__browser_take_screenshot")
	})
	t.Run("nothing at all", func(t *testing.T) {
		r := call(t, s, `{"queries": ["zzqx"]}`, Scope{Pending: []string{"slack", "jira"}})
		assert.False(t, r.IsError)
		assert.Contains(t, r.Text, `Nothing matched "zzqx". Try other words`)
		assert.Contains(t, r.Text, "MCP servers still connecting: jira, slack.")
	})
}

func TestCallVisibility(t *testing.T) {
	plan := mcpPlan(t, []string{"Visible"}, map[string][]string{"srv": {"open_secret", "open_door"}}, nil, "mcp__srv__open_secret")
	s, err := New(plan, nil)
	require.NoError(t, err)
	r := call(t, s, `{"queries": ["open"], "limit": 10}`, Scope{})
	assert.Contains(t, r.Text, "mcp__srv__open_door")
	assert.NotContains(t, r.Text, "secret", "hidden tools are never searched")
	r = call(t, s, `{"tool_names": ["mcp__srv__open_secret"]}`, Scope{})
	assert.Contains(t, r.Text, `No deferred tool is named "mcp__srv__open_secret"`)
	assert.NotContains(t, r.Text, "## mcp__srv__open_secret")

	ann := &registry.Tool{Name: "make_chart", Description: "Draw a bar chart from numbers.", RawSchema: []byte(`{"type":"object","properties":{"values":{"type":"array","items":{"type":"number"}}},"required":["values"]}`)}
	r = call(t, s, `{"queries": ["bar chart"]}`, Scope{Announced: []*registry.Tool{ann}})
	assert.Contains(t, r.Text, "## make_chart")
	assert.Contains(t, r.Text, "- values (array of number, required)")
	assert.NotContains(t, s.IndexText(), "make_chart", "announced tools are not in the frozen index")
}

func TestCallBilingual(t *testing.T) {
	plan, err := PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	s, err := New(plan, &search.Options{Languages: []string{"zh", "en"}})
	require.NoError(t, err)
	r := call(t, s, `{"queries": ["截图"]}`, Scope{})
	assert.True(t, r.IsError)
	assert.Contains(t, r.Text, "Chinese and English; English is missing")
	assert.Contains(t, r.Text, `{"queries": ["截图", "screenshot"]}`)
	r = call(t, s, `{"queries": ["截图", "screenshot"]}`, Scope{})
	assert.False(t, r.IsError)
	assert.Contains(t, r.Text, "## mcp__playwright__browser_take_screenshot")
	r = call(t, s, `{"tool_names": ["mcp__git__git_log"]}`, Scope{})
	assert.False(t, r.IsError, "exact loads need no keywords")

	_, err = New(plan, &search.Options{Languages: []string{"klingon"}})
	assert.ErrorIs(t, err, ErrOptions)
}

// TestFormatGolden keeps the text a loaded tool reads as, for tools with
// enums, nested objects and arrays of objects.
func TestFormatGolden(t *testing.T) {
	s := devSearcher(t)
	var b strings.Builder
	for _, n := range []string{"mcp__github__push_files", "mcp__github__list_issues", "mcp__playwright__browser_fill_form", "mcp__time__convert_time", "mcp__fetch__fetch"} {
		formatFull(&b, s.tools[n])
		b.WriteByte('\n')
	}
	golden := "testdata/format.golden"
	if goldenfile.Updating() {
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with TOOLSHELF_UPDATE=1")
	assert.Equal(t, string(want), b.String())
}

func TestVocabularyErrors(t *testing.T) {
	for _, text := range []string{"lonely", "=> b", "a =>", "a | "} {
		_, err := NewVocabulary(text)
		assert.ErrorIs(t, err, ErrVocabulary, text)
	}
	v, err := NewVocabulary("frobnicate => compress")
	require.NoError(t, err)
	plan, err := PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	s, err := New(plan, &search.Options{Ranker: &BM25F{Vocabulary: v}})
	require.NoError(t, err)
	hits, err := s.Search(context.Background(), []string{"frobnicate"}, 1, Scope{})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "mcp__everything__gzip-file-as-resource", hits[0].Name, "a harness extends the vocabulary")
}

func TestRequiredTerm(t *testing.T) {
	s := devSearcher(t)
	hits, err := s.Search(context.Background(), []string{"list +kubernetes"}, 10, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	for _, h := range hits {
		assert.True(t, strings.HasPrefix(h.Name, "mcp__kubernetes__"), h.Name)
	}
}

func TestCallConcurrent(t *testing.T) {
	s := devSearcher(t)
	want := call(t, s, `{"queries": ["take screenshot"]}`, Scope{}).Text
	ann := []*registry.Tool{{Name: "make_chart", Description: "Draw a chart."}}
	done := make(chan string, 16)
	for i := 0; i < 16; i++ {
		go func(i int) {
			sc := Scope{Loaded: NewLoadedSet()}
			if i%2 == 1 {
				sc.Announced = ann
			}
			done <- s.Call(context.Background(), []byte(`{"queries": ["take screenshot"]}`), sc).Text
		}(i)
	}
	for i := 0; i < 16; i++ {
		assert.Equal(t, want, <-done)
	}
}

// Extending the vocabulary copies the shipped one: one harness's entries
// never reach another searcher in the same process.
func TestVocabularyExtensionDoesNotLeak(t *testing.T) {
	ext, err := NewVocabulary("zorblat | pull request")
	require.NoError(t, err)
	assert.True(t, ext.known("zorblat"))
	plain, err := NewVocabulary()
	require.NoError(t, err)
	assert.False(t, plain.known("zorblat"))
	again, err := NewVocabulary()
	require.NoError(t, err)
	assert.Same(t, plain, again, "the shipped vocabulary is parsed once and shared")
}

// Sessions that share a Searcher and announce different tools each keep
// their own overlay: alternating calls do not rebuild anything, and no
// call rebuilds the shared index.
func TestAnnouncedIndexCachePerToolSet(t *testing.T) {
	r := registry.New(nil)
	require.NoError(t, r.Register(registry.Tool{Name: "Base", Description: "Base tool.", DeferLoading: registry.DeferTrue}))
	plan, err := (&deferral.Policy{}).Plan(r.Snapshot(), deferral.View{})
	require.NoError(t, err)
	counting := &countingRanker{shared: "Base"}
	v, err := NewVocabulary()
	require.NoError(t, err)
	counting.Ranker = &BM25F{Vocabulary: v}
	s, err := New(plan, &search.Options{Ranker: counting})
	require.NoError(t, err)
	a := Scope{Loaded: NewLoadedSet(), Overlay: &Overlay{}, Announced: []*registry.Tool{{Name: "alpha_tool", Description: "Alpha.", RawSchema: []byte(`{"type":"object"}`)}}}
	b := Scope{Loaded: NewLoadedSet(), Overlay: &Overlay{}, Announced: []*registry.Tool{{Name: "beta_tool", Description: "Beta.", RawSchema: []byte(`{"type":"object"}`)}}}
	ctx := context.Background()
	for range 5 {
		ha, err := s.Search(ctx, []string{"alpha"}, 5, a)
		require.NoError(t, err)
		require.NotEmpty(t, ha)
		assert.Equal(t, "alpha_tool", ha[0].Name)
		hb, err := s.Search(ctx, []string{"beta"}, 5, b)
		require.NoError(t, err)
		require.NotEmpty(t, hb)
		assert.Equal(t, "beta_tool", hb[0].Name)
	}
	assert.Equal(t, 3, counting.builds, "the base index and one overlay per session")
	assert.Equal(t, 1, counting.full, "only New indexes the deferred tools")
	assert.Equal(t, 1, a.Overlay.Builds())
}

// More sessions than the old 16-entry cache held, each with its own
// self-built tool, search a 1,000-tool catalog in turn: the shared index is
// built once, in New, and never again (it used to be rebuilt on every
// call, 48 ms each at this size), and each session finds its own tool.
func TestOverlayNeverRebuildsSharedIndex(t *testing.T) {
	plan := syntheticPlan(t, 1000)
	v, err := NewVocabulary()
	require.NoError(t, err)
	counting := &countingRanker{Ranker: &BM25F{Vocabulary: v}, shared: plan.Deferred()[0].Name}
	s, err := New(plan, &search.Options{Ranker: counting})
	require.NoError(t, err)
	const sessions = 40
	scopes := make([]Scope, sessions)
	for i := range scopes {
		tl, err := registry.New(nil).CheckSelfBuilt(registry.Tool{
			Name:        fmt.Sprintf("zorblat_report_%02d", i),
			Description: fmt.Sprintf("Summarise the zorblat ledger number %d as a report.", i),
			RawSchema:   json.RawMessage(`{"type":"object","properties":{"ledger":{"type":"string"}}}`),
		})
		require.NoError(t, err)
		scopes[i] = Scope{Loaded: NewLoadedSet(), Overlay: &Overlay{}, Announced: []*registry.Tool{&tl}}
	}
	ctx := context.Background()
	for round := range 3 {
		for i, sc := range scopes {
			sc.Loaded = NewLoadedSet() // so that the tool comes back whole every round
			r := s.Call(ctx, json.RawMessage(`{"queries":["zorblat ledger report"]}`), sc)
			require.False(t, r.IsError, r.Text)
			assert.Contains(t, r.Text, fmt.Sprintf("## zorblat_report_%02d", i), "round %d", round)
			hits, err := s.Search(ctx, []string{"zorblat ledger report"}, 5, sc)
			require.NoError(t, err)
			require.NotEmpty(t, hits)
			assert.Equal(t, fmt.Sprintf("zorblat_report_%02d", i), hits[0].Name, "the session's own tool ranks first")
			for j := range sessions {
				if j != i {
					assert.NotContains(t, r.Text, fmt.Sprintf("zorblat_report_%02d", j), "another session's tool")
				}
			}
			r = s.Call(ctx, json.RawMessage(`{"queries":["open a pull request"]}`), sc)
			require.False(t, r.IsError, r.Text)
		}
	}
	assert.Equal(t, 1, counting.full, "the shared index is built once")
	assert.Equal(t, 1+sessions, counting.builds, "plus one overlay per session")
	for _, sc := range scopes {
		assert.Equal(t, 1, sc.Overlay.Builds())
	}
}

// countingRanker counts index builds: all of them, and those of the shared
// index (over the plan's deferred tools).
type countingRanker struct {
	search.Ranker
	shared       string // a deferred tool's name: a build over it is a shared-index build
	mu           sync.Mutex
	builds, full int
}

func (c *countingRanker) Index(ctx context.Context, tools []*registry.Tool) (search.Index, error) {
	c.mu.Lock()
	c.builds++
	for _, t := range tools {
		if t.Name == c.shared {
			c.full++
			break
		}
	}
	c.mu.Unlock()
	return c.Ranker.Index(ctx, tools)
}

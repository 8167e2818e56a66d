package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// catalogTool is one tool of a catalog file written by a test.
type catalogTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
}

// writeCatalog writes a catalog file for server (empty: built-in tools).
func writeCatalog(t *testing.T, server string, tools ...catalogTool) string {
	t.Helper()
	for i := range tools {
		if tools[i].InputSchema == nil {
			tools[i].InputSchema = map[string]any{"type": "object"}
		}
	}
	c := map[string]any{"tools": tools}
	if server != "" {
		c["server"] = server
	} else {
		c["catalog"] = "built-in" // the harness's own tools
	}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("%s.json", server))
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

func searcherOf(t *testing.T, paths ...string) *Searcher {
	t.Helper()
	plan, err := PlanCatalogs(paths...)
	require.NoError(t, err)
	s, err := New(plan, nil)
	require.NoError(t, err)
	return s
}

func names(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

// TestServerNameIsOneWord: "GitHub" is the github server, not git + hub:
// the query must not rank the git server's branch tool first.
func TestServerNameIsOneWord(t *testing.T) {
	s := searcherOf(t,
		writeCatalog(t, "git", catalogTool{Name: "git_branch", Description: "List Git branches of a local repository."}),
		writeCatalog(t, "github", catalogTool{Name: "create_branch", Description: "Create a new branch in a repository."},
			catalogTool{Name: "get_me", Description: "Get details of the authenticated user."}),
	)
	hits, err := s.Search(context.Background(), []string{"branch on the remote GitHub repo"}, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "mcp__github__create_branch", hits[0].Name, names(hits))

	e, err := s.Explain(context.Background(), []string{"GitHub"}, "mcp__git__git_branch", Scope{})
	require.NoError(t, err)
	assert.Zero(t, e.Score, "no piece of GitHub reaches the git server's tool")
	assert.Equal(t, "", groupTerm("--"), "a server name without letters has no term")
	assert.Equal(t, groupPrefix+"sequentialthinking", groupTerm("sequential-thinking"))
}

// TestBoilerplateDiscount: a parameter every tool of a server shares
// ("key (access key)") weighs nothing there, while a word only some tools
// have keeps its weight.
func TestBoilerplateDiscount(t *testing.T) {
	var tools []catalogTool
	for i := range 8 {
		tools = append(tools, catalogTool{
			Name:        fmt.Sprintf("op_%d", i),
			Description: fmt.Sprintf("Operation number %d on the store.", i),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string", "description": "access key"}}},
		})
	}
	tools[0].Description = "Rotate the access key of the store."
	s := searcherOf(t, writeCatalog(t, "store", tools...))
	ctx := context.Background()
	hits, err := s.Search(ctx, []string{"access key"}, 3, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "mcp__store__op_0", hits[0].Name, "the one tool whose description says it")

	e, err := s.Explain(ctx, []string{"key"}, "mcp__store__op_3", Scope{})
	require.NoError(t, err)
	assert.Zero(t, e.Score, "a parameter all 8 tools share is boilerplate")
	e, err = s.Explain(ctx, []string{"key"}, "mcp__store__op_0", Scope{})
	require.NoError(t, err)
	assert.Positive(t, e.Words[0].Alts[0].Terms[0].Fields["description"])
}

// TestNameCoverage: one word shared with a long name counts little; the
// tool whose whole name the query covers wins.
func TestNameCoverage(t *testing.T) {
	s := searcherOf(t, writeCatalog(t, "",
		catalogTool{Name: "read_graph_schema_definitions", Description: "Dump schema definitions of the graph."},
		catalogTool{Name: "read_file", Description: "Read a file from disk."},
	))
	ctx := context.Background()
	e, err := s.Explain(ctx, []string{"read"}, "read_graph_schema_definitions", Scope{})
	require.NoError(t, err)
	assert.InDelta(t, fieldSpecs[fName].weight*e.Name.Matched*e.Name.Matched/e.Name.Total, e.Name.Score, 1e-9)
	assert.Less(t, e.Name.Matched, e.Name.Total/2)
	hits, err := s.Search(ctx, []string{"read file"}, 2, Scope{})
	require.NoError(t, err)
	assert.Equal(t, []string{"read_file", "read_graph_schema_definitions"}, names(hits))
}

// TestExpansionBounded: a word's expansions never outrank the word: a tool
// that says "buy" ranks above an otherwise identical one that says its
// WordNet synonym "purchase"; and a word counts only its best match.
func TestExpansionBounded(t *testing.T) {
	s := searcherOf(t, writeCatalog(t, "",
		catalogTool{Name: "tool_a", Description: "Buy the item."},
		catalogTool{Name: "tool_b", Description: "Purchase the item."},
	))
	ctx := context.Background()
	hits, err := s.Search(ctx, []string{"buy"}, 2, Scope{})
	require.NoError(t, err)
	require.Len(t, hits, 2, "the synonym finds tool_b")
	assert.Equal(t, "tool_a", hits[0].Name)
	assert.Greater(t, hits[0].Score, hits[1].Score)

	e, err := s.Explain(ctx, []string{"buy"}, "tool_b", Scope{})
	require.NoError(t, err)
	best := 0.0
	for _, a := range e.Words[0].Alts {
		assert.LessOrEqual(t, a.Weight, 1.0)
		if a.Via != "word" {
			assert.Less(t, a.Weight, 1.0, "an expansion weighs less than the word")
		}
		best = max(best, a.Score)
	}
	assert.InDelta(t, (best+e.Name.Score)*e.Coverage.Factor, e.Score, 1e-9, "the word counts its best alternative only")
}

// TestQueryCoverage: a tool that matches more of the query's words beats
// one that matches a single word more strongly; the explanation gives the
// factor the score was multiplied by.
func TestQueryCoverage(t *testing.T) {
	tools := []catalogTool{
		// One query word, its whole name and its short description.
		{Name: "frobnicate_shelf_parts", Description: "Frobnicate parts."},
		// Both query words, once each, among others.
		{Name: "beta", Description: "Frobnicate the widgets of a gizmo in place, keeping its other settings and the order of its parts."},
	}
	for i := range 6 {
		tools = append(tools, catalogTool{Name: fmt.Sprintf("filler_%d", i), Description: fmt.Sprintf("Count the widgets of shelf %d and report its parts.", i)})
	}
	s := searcherOf(t, writeCatalog(t, "", tools...))
	ctx := context.Background()
	q := []string{"frobnicate gizmo"}
	hits, err := s.Search(ctx, q, 2, Scope{})
	require.NoError(t, err)
	assert.Equal(t, []string{"beta", "frobnicate_shelf_parts"}, names(hits))

	a, err := s.Explain(ctx, q, "frobnicate_shelf_parts", Scope{})
	require.NoError(t, err)
	b, err := s.Explain(ctx, q, "beta", Scope{})
	require.NoError(t, err)
	sum := func(e *Explanation) float64 {
		v := e.Name.Score
		for _, w := range e.Words {
			if w.Best >= 0 {
				v += w.Alts[w.Best].Score
			}
		}
		return v
	}
	assert.Greater(t, sum(a), sum(b), "frobnicate's words score more before coverage")
	assert.Greater(t, b.Coverage.Factor, 0.9, "beta covers the query")
	assert.InDelta(t, 1-coverageShare/2, a.Coverage.Factor, 0.1, "frobnicate about half of it")
	assert.InDelta(t, sum(a)*a.Coverage.Factor, a.Score, 1e-9)
}

// TestSegmentWholeWords: a one-character glossary key fires only as a
// word of its own, never inside an unknown word; with CC-CEDICT the
// unknown word is a word of its own too.
func TestSegmentWholeWords(t *testing.T) {
	seg := func(v *Vocabulary, run string) []string {
		var out []string
		v.segment(run, func(s string, exp []expansion) {
			// glossary: a glossary word; cedict: CC-CEDICT's
			// translations; backoff: only back-offs through shared
			// characters, weighted at most weightBackoff; none.
			src := "none"
			for _, e := range exp {
				switch {
				case e.w == 0:
					src = "glossary"
				case e.via == viaDictionary:
					assert.LessOrEqual(t, e.w, weightDict, s)
					if src != "glossary" {
						src = "cedict"
					}
				default:
					assert.LessOrEqual(t, e.w, weightBackoff, s)
					if src == "none" {
						src = "backoff"
					}
				}
			}
			out = append(out, s+":"+src)
		})
		return out
	}
	glossaryOnly := DefaultVocabulary().clone()
	glossaryOnly.zh = zhGlossary
	_, ok := glossaryOnly.cjk["敲"]
	require.True(t, ok, "the glossary has the one-character key 敲")
	assert.Equal(t, []string{"推敲:backoff"}, seg(glossaryOnly, "推敲"), "敲 inside 推敲 is not a word")
	assert.Equal(t, []string{"敲:glossary"}, seg(glossaryOnly, "敲"))
	assert.Equal(t, []string{"敲:glossary"}, seg(glossaryOnly, "请敲"), "after a function word it is one")
	assert.Equal(t, []string{"创建:glossary", "拉取请求:glossary"}, seg(glossaryOnly, "帮我创建一个拉取请求"), "function words are skipped")

	v := DefaultVocabulary()
	assert.Equal(t, []string{"推敲:cedict"}, seg(v, "推敲"), "CC-CEDICT knows 推敲 as a word")
	assert.Equal(t, []string{"敲:glossary"}, seg(v, "请敲"))
	assert.Equal(t, []string{"创建:glossary", "拉取请求:glossary"}, seg(v, "帮我创建一个拉取请求"), "the glossary's words keep their translations")
	assert.Equal(t, []string{"东京:none", "现在:glossary", "几点:glossary"}, seg(v, "东京现在几点"), "a name is a word without translation, not backed off")
}

// TestExplainMatchesSearch: for dev queries, the explained score of each
// hit is the score the ranking of the whole query gave it (a search with
// several needs also brings each need's head, scored for its need).
func TestExplainMatchesSearch(t *testing.T) {
	s := devSearcher(t)
	ctx := context.Background()
	for i, q := range loadQueries(t, "../../../testdata/queries/dev.jsonl") {
		if i%4 != 0 {
			continue
		}
		hits, _, err := rank(ctx, s.index, q.Query, 5)
		require.NoError(t, err)
		for _, h := range hits {
			e, err := s.Explain(ctx, q.Query, h.Name, Scope{})
			require.NoError(t, err)
			assert.InDelta(t, h.Score, e.Score, 1e-3*h.Score, "%s %s", q.ID, h.Name)
		}
	}
	_, err := s.Explain(ctx, []string{"x"}, "no_such_tool", Scope{})
	assert.ErrorIs(t, err, ErrExplain)
}

// TestExplainWithAnnouncedTools: a session with tools of its own explains
// both its own tools (through its overlay) and the plan's, with the scores
// its search gave them.
func TestExplainWithAnnouncedTools(t *testing.T) {
	s := devSearcher(t)
	ctx := context.Background()
	own := &registry.Tool{Name: "count_todos", Description: "Count TODO comments in the files under a directory.", RawSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
	sc := Scope{Overlay: &Overlay{}, Announced: []*registry.Tool{own}}
	q := []string{"count TODO comments in files"}
	hits, err := s.Search(ctx, q, 5, sc)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	require.Equal(t, "count_todos", hits[0].Name, "the session's own tool matches best")
	for _, h := range hits {
		e, err := s.Explain(ctx, q, h.Name, sc)
		require.NoError(t, err, h.Name)
		assert.InDelta(t, h.Score, e.Score, 1e-3*h.Score, h.Name)
	}
}

// TestRankingIgnoresRegistrationOrder: the same tools registered in any
// order rank the same, scores to the bit.
func TestRankingIgnoresRegistrationOrder(t *testing.T) {
	plan, err := PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	tools := plan.Deferred()
	ctx := context.Background()
	want, err := (&BM25F{}).Index(ctx, tools)
	require.NoError(t, err)
	rng := rand.New(rand.NewSource(1))
	for range 3 {
		shuffled := append([]*registry.Tool(nil), tools...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got, err := (&BM25F{}).Index(ctx, shuffled)
		require.NoError(t, err)
		for _, q := range []string{"create a pull request", "截图 screenshot", "list pods in namespace", "GitHub issue"} {
			a, err := want.Search(ctx, strings.Fields(q), 10)
			require.NoError(t, err)
			b, err := got.Search(ctx, strings.Fields(q), 10)
			require.NoError(t, err)
			assert.Equal(t, a, b, q)
		}
	}
}

// TestQueryAllocationsIndependentOfCatalog: a fuzzy ranking allocates for
// its query and its results, never per tool: ten times the tools, the same
// allocations.
func TestQueryAllocationsIndependentOfCatalog(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds a 3,000-tool index; the race detector drops pooled scratch at random")
	}
	allocs := func(n int) float64 {
		s, err := New(syntheticPlan(t, n), nil)
		require.NoError(t, err)
		return queryAllocs(t, s, benchQuery)
	}
	small, large := allocs(300), allocs(3000)
	assert.Positive(t, small)
	assert.Equal(t, small, large, "allocations per query at 300 and 3,000 tools")
}

// queryAllocs returns the allocations of one ranking of query by s, after
// a first one has warmed the scratch pool and the vocabulary tables.
func queryAllocs(t *testing.T, s *Searcher, query []string) float64 {
	t.Helper()
	ctx := context.Background()
	_, err := s.Search(ctx, query, 5, Scope{})
	require.NoError(t, err)
	return testing.AllocsPerRun(20, func() {
		if _, err := s.Search(ctx, query, 5, Scope{}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestExactNameForm: stemming makes "notifications" and "notification"
// one term, but the name that has the query's exact form ranks first.
func TestExactNameForm(t *testing.T) {
	s := searcherOf(t, writeCatalog(t, "",
		catalogTool{Name: "get_notification", Description: "Fetch it."},
		catalogTool{Name: "list_notifications", Description: "Fetch them."},
	))
	ctx := context.Background()
	hits, err := s.Search(ctx, []string{"notifications"}, 2, Scope{})
	require.NoError(t, err)
	assert.Equal(t, []string{"list_notifications", "get_notification"}, names(hits))
	hits, err = s.Search(ctx, []string{"notification"}, 2, Scope{})
	require.NoError(t, err)
	require.Len(t, hits, 2, "the stem still finds both")
}

// TestPlainBM25IndexMatchesScan: the reference BM25 that evaluations run
// through postings returns exactly what the scanning baseline of the speed
// benchmarks returns.
func TestPlainBM25IndexMatchesScan(t *testing.T) {
	plan, err := PlanCatalogs(catalogPaths(t)...)
	require.NoError(t, err)
	ctx := context.Background()
	scan := newPlainBM25(plan.Deferred())
	idx, err := PlainBM25{}.Index(ctx, plan.Deferred())
	require.NoError(t, err)
	for _, q := range loadQueries(t, "../../../testdata/queries/dev.jsonl") {
		want, err := scan.Search(ctx, q.Query, 5)
		require.NoError(t, err)
		got, err := idx.Search(ctx, q.Query, 5)
		require.NoError(t, err)
		assert.Equal(t, want, got, q.ID)
	}
}

// TestCJKBackoff: a Chinese word the glossary does not know (抓取) is
// searched through the known words that share its characters (获取 "get |
// fetch", 读取 "read"), well below a known word's translation; and the
// back-off does not depend on map order.
func TestCJKBackoff(t *testing.T) {
	v := DefaultVocabulary()
	_, known := v.cjk["抓取"]
	require.False(t, known, "the test needs a word the glossary lacks")
	s := searcherOf(t, writeCatalog(t, "",
		catalogTool{Name: "fetch_page", Description: "Fetch a web page by its address."},
		catalogTool{Name: "delete_page", Description: "Delete a saved page."},
	))
	ctx := context.Background()
	hits, err := s.Search(ctx, []string{"抓取"}, 2, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "fetch_page", hits[0].Name)

	e, err := s.Explain(ctx, []string{"抓取"}, "fetch_page", Scope{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, e.Words[0].Best, 0)
	best := e.Words[0].Alts[e.Words[0].Best]
	assert.Equal(t, "translation by shared characters", best.Via)
	assert.LessOrEqual(t, best.Weight, weightBackoff)

	first := v.backoff("抓取")
	for range 5 {
		assert.Equal(t, first, v.backoff("抓取"))
	}
	assert.Nil(t, v.backoff("抓"), "a single character has no back-off")
}

// TestBM25FLengthNormalisation: BM25F.B sets the description's length
// normalisation: with B near 0 a long description that says the word once
// scores as a short one does; with B 1 it scores less.
func TestBM25FLengthNormalisation(t *testing.T) {
	tools := []*registry.Tool{
		{Name: "short", Description: "Rotate keys."},
		{Name: "long", Description: "Rotate keys, and then write a report of every change to the audit log of the vault, with its time and owner."},
		{Name: "other", Description: "Print the weather."},
	}
	score := func(b float64) map[string]float64 {
		ix, err := (&BM25F{B: b}).Index(context.Background(), tools)
		require.NoError(t, err)
		hits, err := ix.Search(context.Background(), []string{"rotate"}, 3)
		require.NoError(t, err)
		out := map[string]float64{}
		for _, h := range hits {
			out[h.Name] = h.Score
		}
		return out
	}
	flat, full := score(0.001), score(1)
	assert.InDelta(t, flat["short"], flat["long"], 0.01*flat["short"])
	assert.Less(t, full["long"], 0.8*full["short"])
}

// TestJoinedWordsCarryNoMass: words that spell one term of the catalog
// ("pull request" for pullrequest) add no mass to the query's coverage: a
// tool that says "pull request" in two words covers the whole query.
func TestJoinedWordsCarryNoMass(t *testing.T) {
	s := searcherOf(t, writeCatalog(t, "",
		catalogTool{Name: "read_pull_request", Description: "Read a pull request."},
		catalogTool{Name: "get_pullrequest", Description: "Get a pullrequest."},
	))
	e, err := s.Explain(context.Background(), []string{"pull request"}, "read_pull_request", Scope{})
	require.NoError(t, err)
	require.Len(t, e.Words, 3, "pull, pull request (joined), request")
	assert.Zero(t, e.Words[1].Mass)
	assert.InDelta(t, 1.0, e.Coverage.Factor, 1e-9)
}

// TestEnumValuesAreParameterText: the string values a parameter accepts say
// what a tool can select ("state": open, closed, all), so a query word
// found only there still reaches the tool; a tool whose text has the word
// nowhere does not match.
func TestEnumValuesAreParameterText(t *testing.T) {
	s := searcherOf(t, writeCatalog(t, "tracker",
		catalogTool{Name: "list_tickets", Description: "List the tickets of a project.", InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{
				"state": map[string]any{"type": "string", "description": "Filter by state", "enum": []any{"open", "closed", "all"}},
			}}},
		catalogTool{Name: "get_ticket", Description: "Get one ticket of a project."},
	))
	hits, err := s.Search(context.Background(), []string{"closed"}, 5, Scope{})
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp__tracker__list_tickets"}, names(hits))
}

// errAfter is a context whose Err turns to Canceled after n calls.
type errAfter struct {
	context.Context
	n int
}

func (c *errAfter) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

// TestCancelledQueryLeavesNoTrace: a query cancelled between two words
// returns its pooled scratch clean, so the next query finds every tool.
func TestCancelledQueryLeavesNoTrace(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled scratch at random")
	}
	ctx := context.Background()
	ix, err := (&BM25F{}).Index(ctx, []*registry.Tool{
		{Name: "rotate_keys", Description: "Rotate the vault keys."},
		{Name: "print_weather", Description: "Print the weather."},
	})
	require.NoError(t, err)
	_, err = ix.Search(&errAfter{Context: ctx, n: 1}, []string{"rotate weather"}, 5)
	require.ErrorIs(t, err, context.Canceled)
	hits, err := ix.Search(ctx, []string{"rotate keys"}, 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "rotate_keys", hits[0].Name)
}

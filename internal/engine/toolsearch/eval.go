package toolsearch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"

	"github.com/tiktoken-go/tokenizer"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// ErrQueries reports a malformed query file.
var ErrQueries = errors.New("search: query file")

// EvalQuery is one line of a query file:
// {"query": "..." or ["...", ...], "expect": ["exposed_name", ...]}, with
// optional "id", "lang" and "kind" carried into misses and breakdowns.
type EvalQuery struct {
	ID     string   `json:"id,omitempty"`
	Query  []string `json:"query"`
	Expect []string `json:"expect"`
	Lang   string   `json:"lang,omitempty"`
	Kind   string   `json:"kind,omitempty"`
}

// ReadQueries parses a JSON Lines query file. Blank lines are skipped;
// errors wrap [ErrQueries] and name the line.
func ReadQueries(r io.Reader) ([]EvalQuery, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	var out []EvalQuery
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var raw struct {
			ID     json.RawMessage `json:"id"`
			Query  json.RawMessage `json:"query"`
			Expect []string        `json:"expect"`
			Lang   string          `json:"lang"`
			Kind   string          `json:"kind"`
		}
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrQueries, n, err)
		}
		q := EvalQuery{Expect: raw.Expect, Lang: raw.Lang, Kind: raw.Kind}
		if len(raw.ID) > 0 {
			var s string
			if json.Unmarshal(raw.ID, &s) != nil {
				s = string(raw.ID)
			}
			q.ID = s
		}
		var one string
		if json.Unmarshal(raw.Query, &one) == nil {
			q.Query = []string{one}
		} else if json.Unmarshal(raw.Query, &q.Query) != nil || len(q.Query) == 0 {
			return nil, fmt.Errorf("%w: line %d: \"query\" must be a string or an array of strings", ErrQueries, n)
		}
		if q.Expect == nil {
			return nil, fmt.Errorf("%w: line %d: \"expect\" must list the tools that serve the query, or be [] for a query no tool serves", ErrQueries, n)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrQueries, err)
	}
	return out, nil
}

// Figures are retrieval figures over a set of queries. A query counts as a
// hit at k when any of its expected tools is among the first k results.
type Figures struct {
	Queries   int     `json:"queries"`
	RecallAt1 float64 `json:"recall_at_1"`
	RecallAt5 float64 `json:"recall_at_5"`
	// MRR is the mean of 1/rank of the first expected tool in the results
	// (0 when none is returned).
	MRR float64 `json:"mrr"`
	// MeanSchemasLoaded is the mean number of full schemas one search puts
	// into the context.
	MeanSchemasLoaded float64 `json:"mean_schemas_loaded"`
	// MeanResults is the mean number of results returned.
	MeanResults float64 `json:"mean_results"`
	// MultiQueries counts the queries expecting two or more tools, and
	// AllAt5 is the share of them with every expected tool in the first 5:
	// the recall of a request with several needs, where a row's expect
	// lists tools it needs together (MetaTool's multi-tool, BFCL's
	// parallel-multiple, Seal-Tools' difficult rows).
	MultiQueries int     `json:"multi_queries,omitempty"`
	AllAt5       float64 `json:"all_at_5,omitempty"`
	// Abstained counts the queries on which tool_search said no tool fits
	// (naming the closest by name: they still count for recall, with no
	// schema loaded).
	Abstained int `json:"abstained"`
	// RecallAt10 is recall at 10 of the ranking (what a search reading ten
	// results would see).
	RecallAt10 float64 `json:"recall_at_10"`
	// Visible is the share of queries whose answer shows an expected tool:
	// among the schemas it loads or the names it lists (the candidate list,
	// or the closest names of an abstention). MeanTokens is the mean size
	// of the answer's text in o200k_base tokens.
	Visible    float64 `json:"visible_recall"`
	MeanTokens float64 `json:"mean_tokens"`
	// NotSure counts the queries on which tool_search was not sure: it
	// listed candidates and loaded none (Abstained counts "nothing fits").
	NotSure int `json:"not_sure"`
	// Preloaded counts the queries a session with Config.Preload would
	// attach schemas for ([Searcher.Sure] on the query's strings joined, as
	// a user message); PreloadRight those of them with an expected tool
	// attached. PreloadRight / Preloaded is the preload's precision.
	Preloaded    int `json:"preloaded"`
	PreloadRight int `json:"preload_right"`
}

// Abstention is how a search did on queries no tool serves (rows with
// "expect": []): of Queries, it said nothing fits on Abstained.
type Abstention struct {
	Queries   int                    `json:"queries"`
	Abstained int                    `json:"abstained"`
	ByHalf    map[string]*Abstention `json:"by_half,omitempty"`
	// Loaded counts the full schemas the searches put into the context.
	Loaded int `json:"schemas_loaded"`
	// NotSure counts the queries answered "not sure" (candidates, nothing
	// loaded): neither a true "nothing fits" nor a wrong load.
	NotSure int `json:"not_sure"`
	// Preloaded counts the queries Config.Preload would attach schemas
	// for: every one a wrong preload.
	Preloaded int `json:"preloaded"`
}

// Rate is Abstained / Queries (0 for no queries).
func (a *Abstention) Rate() float64 {
	if a == nil || a.Queries == 0 {
		return 0
	}
	return float64(a.Abstained) / float64(a.Queries)
}

// Miss is a query whose expected tools were all outside the top 5.
type Miss struct {
	ID     string   `json:"id,omitempty"`
	Query  []string `json:"query"`
	Expect []string `json:"expect"`
	Got    []string `json:"got"`
	Lang   string   `json:"lang,omitempty"`
	Kind   string   `json:"kind,omitempty"`
}

// Report is the result of [Eval]: overall figures, the misses, and the
// figures per "lang" and per "kind" of query (when the file has them) and
// per half ("tune" and "check", see [Half]).
type Report struct {
	Figures
	Misses []Miss              `json:"misses"`
	ByLang map[string]*Figures `json:"by_lang,omitempty"`
	ByKind map[string]*Figures `json:"by_kind,omitempty"`
	ByHalf map[string]*Figures `json:"by_half,omitempty"`
	// Abstention covers the rows with "expect": [], which the figures
	// above leave out; nil when the file has none.
	Abstention *Abstention `json:"abstention,omitempty"`
}

// Halves of a query set.
const (
	HalfTune  = "tune"
	HalfCheck = "check"
)

// Half assigns a query to the tune or the check half of its set, by a hash
// of its id (of its query strings when it has none): a fixed split that
// does not depend on the file's order. Ranking changes are tried on the
// tune half; the check half says whether they generalise.
func Half(q EvalQuery) string {
	h := fnv.New32a()
	if q.ID != "" {
		h.Write([]byte(q.ID))
	} else {
		h.Write([]byte(strings.Join(q.Query, "\x00")))
	}
	if h.Sum32()%2 == 0 {
		return HalfTune
	}
	return HalfCheck
}

// evalDepth is how many results a query is evaluated on: recall@5 needs 5.
const evalDepth = 5

// Eval runs every query through s as a fuzzy tool_search would (default
// presentation: full schemas as [Searcher.Presentation] decides) and
// reports the figures.
func Eval(ctx context.Context, s *Searcher, qs []EvalQuery) (*Report, error) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("search: evaluation tokenizer: %w", err)
	}
	return evaluate(ctx, qs, func(ctx context.Context, _ int, q []string) (evalRun, error) {
		return s.evalOne(ctx, enc, q)
	})
}

// evalOne runs one query as [Eval] does: the ranking read 5 and 10 deep,
// the answer a fuzzy tool_search would give, and what a preload would
// attach.
func (s *Searcher) evalOne(ctx context.Context, enc tokenizer.Codec, q []string) (evalRun, error) {
	hits, _, err := s.search(ctx, q, max(evalDepth, s.opts.MaxResults), Scope{})
	if err != nil {
		return evalRun{}, err
	}
	hits10, _, err := s.search(ctx, q, 10, Scope{})
	if err != nil {
		return evalRun{}, err
	}
	ans, err := s.answerFor(ctx, q)
	if err != nil {
		return evalRun{}, err
	}
	ids, _, _ := enc.Encode(ans.text)
	pre, err := s.Sure(ctx, strings.Join(q, " "), Scope{})
	if err != nil {
		return evalRun{}, err
	}
	return evalRun{hits: hits, hits10: hits10, schemas: len(ans.loaded), abstained: ans.abstained, notSure: ans.notSure,
		shown: append(ans.loaded, ans.listed...), tokens: len(ids), answered: true, preloaded: pre}, nil
}

// anAnswer is what one fuzzy tool_search call showed the model.
type anAnswer struct {
	text               string
	loaded, listed     []string
	abstained, notSure bool
}

// answerFor runs queries as a fuzzy tool_search call with no "limit" on
// a session that has loaded nothing, and says what the answer showed.
func (s *Searcher) answerFor(ctx context.Context, queries []string) (anAnswer, error) {
	v, err := s.view(ctx, Scope{})
	if err != nil {
		return anAnswer{}, err
	}
	w := &writer{s: s, cap: s.opts.ResponseCap}
	if err := s.fuzzy(ctx, w, v, queries, s.opts.MaxResults, "", true); err != nil {
		return anAnswer{}, err
	}
	return anAnswer{text: strings.TrimRight(w.b.String(), "\n"), loaded: slices.Sorted(slices.Values(w.loaded)), listed: w.listed, abstained: w.abstained, notSure: w.notSure}, nil
}

// evalRun is one query's search: its ranking, the schemas its answer
// loaded, whether it abstained, and (for [Eval]) what it showed and its
// size in tokens.
type evalRun struct {
	hits      []search.Hit
	hits10    []search.Hit // the ranking read ten deep, when it differs
	schemas   int
	abstained bool
	notSure   bool
	shown     []string
	tokens    int
	answered  bool
	preloaded []*registry.Tool // what Config.Preload would attach
}

// EvalIndex runs every query through an index that returns limit results
// and loads every one of them (how a plain search tool behaves). It scores
// baselines and other rankers on the same footing as [Eval].
func EvalIndex(ctx context.Context, idx search.Index, limit int, qs []EvalQuery) (*Report, error) {
	return evaluate(ctx, qs, func(ctx context.Context, _ int, q []string) (evalRun, error) {
		hits, err := idx.Search(ctx, q, limit)
		return evalRun{hits: hits, schemas: len(hits)}, err
	})
}

// evaluate runs each query of qs (run gets its index in qs) and adds up
// the figures.
func evaluate(ctx context.Context, qs []EvalQuery, run func(context.Context, int, []string) (evalRun, error)) (*Report, error) {
	rep := &Report{Misses: []Miss{}, ByLang: map[string]*Figures{}, ByKind: map[string]*Figures{}, ByHalf: map[string]*Figures{}}
	var abstained, notSure bool
	var preloaded, preloadRight int // 1 when Config.Preload would fire, and fire right
	allIn := -1                     // the current query's all-expected hit: -1 for a one-tool query
	var r10, vis, toks float64
	add := func(f *Figures, r1, r5, rr float64, schemas, results int) {
		f.RecallAt10 += r10
		f.Visible += vis
		f.MeanTokens += toks
		f.Queries++
		if abstained {
			f.Abstained++
		}
		if notSure {
			f.NotSure++
		}
		f.Preloaded, f.PreloadRight = f.Preloaded+preloaded, f.PreloadRight+preloadRight
		if allIn >= 0 {
			f.MultiQueries++
			f.AllAt5 += float64(allIn)
		}
		f.RecallAt1 += r1
		f.RecallAt5 += r5
		f.MRR += rr
		f.MeanSchemasLoaded += float64(schemas)
		f.MeanResults += float64(results)
	}
	for i, q := range qs {
		er, err := run(ctx, i, q.Query)
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", q.ID, err)
		}
		hits, schemas, abst := er.hits, er.schemas, er.abstained
		abstained, notSure = abst, er.notSure
		toks = float64(er.tokens)
		preloaded, preloadRight = preloadOutcome(er.preloaded, q.Expect)
		if len(q.Expect) == 0 {
			rep.Abstention = countAbstention(rep.Abstention, Half(q), abst, er.notSure, schemas, preloaded)
			continue
		}
		rank := rankOf(hits, q.Expect)
		var r1, r5, rr float64
		r1, r5, rr, r10, vis = recalls(q.Expect, rank, er)
		allIn = -1
		if len(q.Expect) > 1 {
			allIn = 1
			for _, e := range q.Expect {
				if !slices.ContainsFunc(hits[:min(5, len(hits))], func(h search.Hit) bool { return h.Name == e }) {
					allIn = 0
				}
			}
		}
		add(&rep.Figures, r1, r5, rr, schemas, len(hits))
		for _, kv := range []struct {
			m   map[string]*Figures
			key string
		}{{rep.ByLang, q.Lang}, {rep.ByKind, q.Kind}, {rep.ByHalf, Half(q)}} {
			if kv.key == "" {
				continue
			}
			if kv.m[kv.key] == nil {
				kv.m[kv.key] = &Figures{}
			}
			add(kv.m[kv.key], r1, r5, rr, schemas, len(hits))
		}
		if r5 == 0 {
			got := make([]string, 0, len(hits))
			for _, h := range hits[:min(5, len(hits))] {
				got = append(got, h.Name)
			}
			rep.Misses = append(rep.Misses, Miss{ID: q.ID, Query: q.Query, Expect: q.Expect, Got: got, Lang: q.Lang, Kind: q.Kind})
		}
	}
	finish := func(f *Figures) {
		if f.Queries == 0 {
			return
		}
		n := float64(f.Queries)
		f.RecallAt1 /= n
		f.RecallAt5 /= n
		f.MRR /= n
		f.MeanSchemasLoaded /= n
		f.MeanResults /= n
		f.RecallAt10 /= n
		f.Visible /= n
		f.MeanTokens /= n
		if f.MultiQueries > 0 {
			f.AllAt5 /= float64(f.MultiQueries)
		}
	}
	finish(&rep.Figures)
	for _, m := range []map[string]*Figures{rep.ByLang, rep.ByKind, rep.ByHalf} {
		for _, f := range m {
			finish(f)
		}
	}
	return rep, nil
}

// rankOf returns the 1-based rank of the first expected tool in hits, 0
// when none is there.
func rankOf(hits []search.Hit, expect []string) int {
	for i, h := range hits {
		if slices.Contains(expect, h.Name) {
			return i + 1
		}
	}
	return 0
}

// recalls scores one query whose first expected tool is at rank: hit at 1,
// at 5, reciprocal rank, hit at 10 (on the ranking read ten deep, when the
// run has one), and whether the answer showed an expected tool.
func recalls(expect []string, rank int, er evalRun) (r1, r5, rr, r10, vis float64) {
	if rank == 1 {
		r1 = 1
	}
	if rank >= 1 && rank <= 5 {
		r5 = 1
	}
	if rank > 0 {
		rr = 1 / float64(rank)
	}
	if er.hits10 != nil {
		if rankOf(er.hits10[:min(10, len(er.hits10))], expect) > 0 {
			r10 = 1
		}
	} else if rank >= 1 && rank <= 10 {
		r10 = 1
	}
	if slices.ContainsFunc(er.shown, func(n string) bool { return slices.Contains(expect, n) }) {
		vis = 1
	}
	return r1, r5, rr, r10, vis
}

// preloadOutcome says whether a query's preload fired (1) and whether it
// attached an expected tool (1).
func preloadOutcome(pre []*registry.Tool, expect []string) (fired, right int) {
	if len(pre) > 0 {
		fired = 1
	}
	if slices.ContainsFunc(pre, func(t *registry.Tool) bool { return slices.Contains(expect, t.Name) }) {
		right = 1
	}
	return fired, right
}

// countAbstention adds one no-match query to a (created when nil) and to
// its half.
func countAbstention(a *Abstention, half string, abstained, notSure bool, schemas, preloaded int) *Abstention {
	if a == nil {
		a = &Abstention{ByHalf: map[string]*Abstention{}}
	}
	h := a.ByHalf[half]
	if h == nil {
		h = &Abstention{}
		a.ByHalf[half] = h
	}
	for _, x := range []*Abstention{a, h} {
		x.Queries++
		x.Loaded += schemas
		x.Preloaded += preloaded
		if abstained {
			x.Abstained++
		}
		if notSure {
			x.NotSure++
		}
	}
	return a
}

// PlanCatalogs loads catalog files into a new registry (a file with a
// "server" key becomes that MCP server's group, one without joins the
// built-in group) and returns a plan in which every tool is deferred, as
// `toolshelf eval` and the quality tests search them.
func PlanCatalogs(paths ...string) (*deferral.Plan, error) {
	reg := registry.New(nil)
	for _, p := range paths {
		c, err := registry.LoadCatalog(p)
		if err != nil {
			return nil, err
		}
		if err := reg.Import(c); err != nil && !errors.Is(err, registry.ErrRejected) { // measured without the tools left out, as before
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	pol := deferral.Policy{Default: deferral.DefaultDefer, Layers: []deferral.Layer{deferral.MustLayer("eval", "Defer(*)")}}
	return pol.Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
}

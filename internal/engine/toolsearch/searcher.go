package toolsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/shortname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Defaults of [search.Options].
const (
	DefaultIndexBudget      = 20000 // chars of the index, as in a published 60-tool harness
	DefaultDescriptionLimit = 100   // runes of a server description in the index
	DefaultWhere            = "the search index"
	DefaultMaxResults       = 5 // results of a fuzzy search, as Claude Code
	DefaultResultLimit      = 10
	DefaultMaxFullSchemas   = 3
	DefaultFullScoreRatio   = 0.95
	DefaultListBudget       = 450   // chars of the candidate list, chosen on the tune halves
	DefaultResponseCap      = 30000 // 1.5 × the index budget
	DefaultMaxNames         = 20
	DefaultMaxQueries       = 10
	DefaultMaxQueryRunes    = 2000
)

// withDefaults fills in the defaults of o and checks the result.
func withDefaults(o *search.Options) (search.Options, error) {
	var c search.Options
	if o != nil {
		c = *o
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.IndexBudget, DefaultIndexBudget)
	def(&c.DescriptionLimit, DefaultDescriptionLimit)
	def(&c.MaxResults, DefaultMaxResults)
	def(&c.ResultLimit, DefaultResultLimit)
	def(&c.MaxFullSchemas, DefaultMaxFullSchemas)
	def(&c.ResponseCap, DefaultResponseCap)
	def(&c.MaxNames, DefaultMaxNames)
	def(&c.MaxQueries, DefaultMaxQueries)
	def(&c.MaxQueryRunes, DefaultMaxQueryRunes)
	if c.FullScoreRatio == 0 {
		c.FullScoreRatio = DefaultFullScoreRatio
	}
	if c.ListBudget == 0 {
		c.ListBudget = DefaultListBudget
	}
	if c.Where == "" {
		c.Where = DefaultWhere
	}
	c.Where = collapse(c.Where)
	for _, p := range []struct {
		name string
		v    int
	}{{"IndexBudget", c.IndexBudget}, {"DescriptionLimit", c.DescriptionLimit}, {"MaxResults", c.MaxResults}, {"ResultLimit", c.ResultLimit},
		{"MaxFullSchemas", c.MaxFullSchemas}, {"ResponseCap", c.ResponseCap}, {"MaxNames", c.MaxNames}, {"MaxQueries", c.MaxQueries}, {"MaxQueryRunes", c.MaxQueryRunes}} {
		if p.v < 0 {
			return c, fmt.Errorf("%w: %s is %d, want a positive number (0 means the default)", ErrOptions, p.name, p.v)
		}
	}
	if c.MaxResults > c.ResultLimit {
		return c, fmt.Errorf("%w: MaxResults %d exceeds ResultLimit %d", ErrOptions, c.MaxResults, c.ResultLimit)
	}
	if c.FullScoreRatio > 1 {
		return c, fmt.Errorf("%w: FullScoreRatio %v is above 1", ErrOptions, c.FullScoreRatio)
	}
	for _, l := range c.Languages {
		if _, ok := languageScript(l); !ok {
			return c, fmt.Errorf("%w: language %q: want a code such as \"en\", \"zh\", \"ja\" or \"ko\"", ErrOptions, l)
		}
	}
	return c, nil
}

// LoadedTools is the session's loaded set as a search reads it (a
// [LoadedSet]): a search never writes it, and returns what it loaded
// instead ([Searcher.Load]).
type LoadedTools interface {
	Has(name string) bool
}

// Scope is one session's side of a search call. A Searcher is shared by
// every session with the same plan; what differs per session lives here.
type Scope struct {
	// Loaded is the session's loaded set (a *[LoadedSet]), read only:
	// a schema already loaded is not sent again. Nil: nothing is.
	Loaded LoadedTools
	// Announced are self-built tools announced mid-session: searchable, but
	// not in the frozen index.
	Announced []*registry.Tool
	// Overlay, when set, keeps the index over Announced between calls: a
	// session passes its own, and the index is rebuilt only when the
	// session's announced tools change. Nil builds it for the call.
	Overlay *Overlay
	// Pending names MCP servers still connecting, so a miss can say "not
	// ready yet" rather than "does not exist".
	Pending []string
	// Removed names tools that left the session's tool set: never found,
	// and a load by name says the tool was removed. Sorted.
	Removed []string
}

// removed reports whether name is in sc.Removed.
func (sc *Scope) removed(name string) bool {
	_, ok := slices.BinarySearch(sc.Removed, name)
	return ok
}

// Searcher answers tool_search calls over a plan's deferred tools. It is
// built once per session (or shared by sessions with the same plan) and is
// safe for concurrent use. Its index over the deferred tools is built once,
// in [New], and never rebuilt: a session's self-built tools are searched
// through that session's [Overlay].
type Searcher struct {
	plan   *deferral.Plan
	opts   search.Options
	ranker search.Ranker
	index  search.Index
	text   string
	tools  map[string]*registry.Tool // deferred tools by name
	short  *shortname.Table          // the plan's short names
	// shortListed: the index lists a short name ([Searcher.ShortNames]).
	shortListed bool
	full        sync.Map // name → formatFull text of a deferred tool
	twin        sync.Map // name → toolWords of a deferred tool
}

// fullText returns t as a full-schema hit reads. The text of a deferred
// tool is a pure function of the tool, formatted once per searcher and
// shared by every session: formatting parses the schema, and did so on
// every hit (a third of the CPU of the scale run's turns). A session's
// self-built tool is formatted each time.
func (s *Searcher) fullText(t *registry.Tool) string {
	if s.tools[t.Name] != t {
		var b strings.Builder
		formatFull(&b, t)
		return b.String()
	}
	if v, ok := s.full.Load(t.Name); ok {
		return v.(string)
	}
	var b strings.Builder
	formatFull(&b, t)
	v, _ := s.full.LoadOrStore(t.Name, b.String())
	return v.(string)
}

// New builds the searcher, its ranking index and its name index for plan.
// Only the plan's deferred tools are searchable (plus tools a session
// announces through [Scope]); hidden tools never appear. opts may be nil.
func New(plan *deferral.Plan, opts *search.Options) (*Searcher, error) {
	if plan == nil {
		return nil, fmt.Errorf("%w: nil plan", ErrOptions)
	}
	o, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	r := o.Ranker
	if r == nil {
		v, err := NewVocabulary(o.Vocabulary...)
		if err != nil {
			return nil, err
		}
		r = &BM25F{Vocabulary: v}
	}
	if h, ok := r.(*search.Hybrid); ok && h.Lexical == nil {
		// search cannot name the built-in ranker (this package imports
		// it), so a Hybrid's default lexical side is filled in here, as
		// it always was: BM25F with the shipped vocabulary.
		c := *h
		c.Lexical = &BM25F{}
		r = &c
	}
	s := &Searcher{plan: plan, opts: o, ranker: r, tools: map[string]*registry.Tool{}, short: shortTable(plan)}
	for _, t := range plan.Deferred() {
		s.tools[t.Name] = t
	}
	s.index, err = r.Index(context.Background(), plan.Deferred())
	if err != nil {
		return nil, fmt.Errorf("search: building the index: %w", err)
	}
	s.text = buildIndex(plan, &o)
	s.shortListed = listsShortNames(plan, s.short)
	return s, nil
}

// IndexText returns the <available_deferred_tools> block for the description.
func (s *Searcher) IndexText() string { return s.text }

// Options returns the options in effect, defaults filled in.
func (s *Searcher) Options() search.Options { return s.opts }

// view is the searchable world of one call: the deferred tools plus the
// scope's announced ones.
type view struct {
	index  search.Index
	lookup func(name string) (*registry.Tool, bool)
}

func (s *Searcher) view(ctx context.Context, sc Scope) (view, error) {
	base := func(name string) (*registry.Tool, bool) {
		t, ok := s.tools[name]
		return t, ok
	}
	if len(sc.Removed) > 0 {
		base = func(name string) (*registry.Tool, bool) {
			t, ok := s.tools[name]
			return t, ok && !sc.removed(name)
		}
	}
	// An announced tool may carry a deferred tool's name: the session
	// approved a new definition of it, which replaces the shared one.
	var extra []*registry.Tool
	for _, t := range sc.Announced {
		if t != nil && s.tools[t.Name] != t && !sc.removed(t.Name) {
			extra = append(extra, t)
		}
	}
	if len(extra) == 0 {
		return view{index: s.index, lookup: base}, nil
	}
	ov := sc.Overlay
	if ov == nil {
		ov = &Overlay{}
	}
	idx, by, err := ov.get(ctx, s.ranker, s.index, extra)
	if err != nil {
		return view{}, err
	}
	return view{index: merged{s.index, idx, by}, lookup: func(name string) (*registry.Tool, bool) {
		if t, ok := by[name]; ok {
			return t, true
		}
		return base(name)
	}}, nil
}

// Search ranks the searchable tools for queries (searched together) and
// returns up to limit hits, best first. It is the ranking behind fuzzy
// tool_search calls, without the presentation; `toolshelf search --json`
// and [Eval] use it. A query with several needs also brings each need's
// best hit up behind the first, scored for its need, and the best hit's
// near twins beside it, so scores need not descend.
func (s *Searcher) Search(ctx context.Context, queries []string, limit int, sc Scope) ([]search.Hit, error) {
	v, err := s.view(ctx, sc)
	if err != nil {
		return nil, err
	}
	hits, _, _, _, err := s.assemble(ctx, v, queries, limit, false)
	return hits, err
}

// search is Search with the count of leading hits that head a need of the
// query (see [rankNeeds]).
func (s *Searcher) search(ctx context.Context, queries []string, limit int, sc Scope) ([]search.Hit, int, error) {
	v, err := s.view(ctx, sc)
	if err != nil {
		return nil, 0, err
	}
	hits, heads, _, _, err := s.assemble(ctx, v, queries, limit, false)
	return hits, heads, err
}

// assemble ranks a fuzzy search: the needs of the query covered
// ([rankNeeds]), then the best hit's near twins brought up beside it
// ([withTwins]). heads counts the leading hits that get their schema;
// twins describes the twin group, when there is one.
func (s *Searcher) assemble(ctx context.Context, v view, queries []string, limit int, wantNotes bool) (hits []search.Hit, heads int, note string, twins []string, err error) {
	hits, heads, note, twins, _, err = s.assembleDeep(ctx, v, queries, limit, wantNotes)
	return hits, heads, note, twins, err
}

// assembleDeep is assemble that also returns the whole query's ranking to
// listDepth, which the candidate list reads below the hits.
func (s *Searcher) assembleDeep(ctx context.Context, v view, queries []string, limit int, wantNotes bool) (hits []search.Hit, heads int, note string, twins []string, deep []search.Hit, err error) {
	hits, heads, note, deep, err = rankNeeds(ctx, v.index, queries, limit)
	if err != nil || len(hits) == 0 {
		return hits, heads, note, nil, deep, err
	}
	if Abstains(hits) {
		hits = meantServerFirst(v, queries, hits, deep, limit)
	}
	hits, heads, group := withTwins(hits, heads, deep, limit, v.lookup, s.twinWordsOf)
	if len(group) > 0 && wantNotes {
		best, _ := v.lookup(hits[0].Name)
		twins = s.twinNotes(best, group, v.lookup)
	}
	return hits, heads, note, twins, deep, nil
}

// Presentation says how each of hits would come back from a fuzzy search:
// the first ones with their full schema only as far as the evidence is
// sure — the best hit, and the hits right behind it scoring at least
// FullScoreRatio of it (close siblings), at most MaxFullSchemas — then
// one compact line each (as many again), the rest as names. A request's
// other needs' best tools come up front in the list, not as schemas: the
// model loads one by name when it gets there.
func (s *Searcher) Presentation(hits []search.Hit) []Shape { return s.presentation(hits) }

func (s *Searcher) presentation(hits []search.Hit) []Shape {
	out := make([]Shape, len(hits))
	full, short := 0, 0
	for i, h := range hits {
		switch {
		case full < s.opts.MaxFullSchemas && full == i && (s.opts.FullScoreRatio < 0 || h.Score >= s.opts.FullScoreRatio*hits[0].Score):
			out[i] = ShapeFull
			full++
		case short < s.opts.MaxFullSchemas:
			out[i] = ShapeShort
			short++
		default:
			out[i] = ShapeName
		}
	}
	return out
}

// Shape is how one hit is presented.
type Shape uint8

// The three shapes of a hit, from most to least detail.
const (
	ShapeFull  Shape = iota + 1 // name, description, every parameter
	ShapeShort                  // name and the description's first line
	ShapeName                   // name only
)

// meantServerFirst ranks an uncertain search's candidates with the tools
// of the servers the request names only through what its words mean
// first ("remember …", "forget …": the memory server, through WordNet's
// definitions), in ranking order, then the rest. Such a server's tools
// score nothing — the request's words are not the catalog's — so without
// this they rank below any tool an incidental word matches. A server
// named by its name scores through its name and keeps its place. hits is
// returned unchanged when no such server has a tool in deep.
func meantServerFirst(v view, queries []string, hits, deep []search.Hit, limit int) []search.Hit {
	ix, ok := v.index.(*bm25Index)
	if !ok {
		return hits
	}
	meant := ix.serverNameEvidence(queries, true)
	var first, rest []search.Hit
	for _, h := range deep {
		if meant[ix.serverOf(h.Name)] >= nothingFitsEvidence {
			first = append(first, h)
		} else {
			rest = append(rest, h)
		}
	}
	if len(first) == 0 {
		return hits
	}
	out := append(first, rest...)
	return out[:min(len(out), limit)]
}

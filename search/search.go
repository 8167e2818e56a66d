package search

import (
	"context"
	"errors"

	"github.com/toolshelf/toolshelf/registry"
)

// ErrOptions reports an invalid [Options] value: request.NewSession returns
// it, wrapped, when the session's Config.Search cannot be honoured.
var ErrOptions = errors.New("search: options")

// A Ranker builds a search index over tools. The built-in ranker is BM25F
// (BM25 over weighted fields, with stemming and a vocabulary of
// abbreviations, WordNet and a Chinese glossary; docs/search-quality.md); a
// harness with an embedding model brings its own, alone or fused with the
// built-in one by [Hybrid], and passes it as [Options].Ranker.
type Ranker interface {
	// Index builds an index over tools. It is called once per searcher
	// (and once per distinct set of tools a session announces
	// mid-session).
	Index(ctx context.Context, tools []*registry.Tool) (Index, error)
}

// An Index ranks the tools it was built over.
type Index interface {
	// Search returns up to limit tools matching queries (the strings of one
	// tool_search call, searched together), best first. Ties must be broken
	// by name so that results are deterministic. A hit needs a positive
	// score; Search may return fewer than limit hits, or none.
	Search(ctx context.Context, queries []string, limit int) ([]Hit, error)
}

// A Hit is one ranked tool.
type Hit struct {
	// Name is the tool's full name.
	Name string `json:"name"`
	// Score orders hits, higher first; scores compare within one index
	// only.
	Score float64 `json:"score"`
	// Fit says how credible the hit is on scales every catalog shares; a
	// ranker that cannot say leaves it zero, and its hits are never judged.
	Fit Fit `json:"fit,omitzero"`
}

// A Fit says how credible a [Hit] is, on scales that mean the same in every
// catalog, so that tool_search can say "nothing fits" instead of loading the
// schemas of the least bad tools; [Fit.Credible] applies the rule. The
// built-in ranker fills it in (docs/search-quality.md says how).
type Fit struct {
	// Judged is false for a ranker that does not compute a fit: its hits
	// are always credible.
	Judged bool `json:"-"`
	// Evidence is the query mass the tool covers (each query word's weight
	// × IDF, up to what the tool earned for it) in units of the IDF of a
	// term exactly one tool has, log(1 + (N-0.5)/1.5): one query word found
	// in one tool only, and found there fully, is worth 1 in any catalog; a
	// word half of 293 tools have, about 0.13. It grows with the number of
	// distinct, specific words the tool matches, not with the catalog.
	Evidence float64 `json:"evidence"`
	// Coverage is the share of the query's mass the tool covers, a query
	// word counting with its own mass even when the catalog lacks it
	// ("bored", "晚安") or knows it only through weak relations. A request
	// whose specific words no tool has is not covered, however well one
	// generic word of it matches.
	Coverage float64 `json:"coverage"`
	// Name is the share of the tool's name (by IDF) the query covers.
	Name float64 `json:"name"`
	// Group is Evidence with the tool's server counted: each query word
	// counts the larger of what the tool earned for it and what it is
	// worth to the server — a word of the server's name, or one most of
	// its tools share ("knowledge graph" in every memory tool), weighs 1
	// when one server has it, in a catalog of one server or of fifty.
	// Words every tool of a server shares tell servers apart, not tools:
	// they say a request is for this server even when no one tool stands
	// out. At least Evidence.
	Group float64 `json:"group"`
}

// The abstention rule: a hit is credible unless its evidence is below
// minEvidence, or below strongEvidence while it covers less than
// minCoverage of the query and at most weakName of its own name. Set on
// the tune halves: of the grids tried (docs/search-quality.md), the
// thresholds that abstain on at least 90% of the no-match set's tune half
// (testdata/queries/nomatch.jsonl, over the dev catalogs) while abstaining
// on the fewest queries of the positive sets' tune halves. A word found in
// exactly one tool (evidence 1) is credible when it is in that tool's name
// or covers enough of the query: "restaurant" in a tool named for
// restaurants, not "robots" in a fetch tool's fine print.
const (
	minEvidence    = 0.95
	strongEvidence = 1.05
	minCoverage    = 0.4
	weakName       = 0.3
)

// Credible reports whether the hit is a credible match for its query.
func (f Fit) Credible() bool {
	if !f.Judged {
		return true
	}
	if f.Evidence < minEvidence {
		return false
	}
	return f.Evidence >= strongEvidence || f.Coverage >= minCoverage || f.Name > weakName
}

// Options configures tool_search for a session (request.Config.Search).
// Nil, or a zero field, means the default.
type Options struct {
	// IndexBudget bounds the characters of the index lines; groups that do
	// not fit are dropped whole and counted in the coordinate line. 0 means
	// 20,000 (as in a published 60-tool harness).
	IndexBudget int
	// DescriptionLimit bounds a server description in its header, in runes;
	// 0 means 100.
	DescriptionLimit int
	// Where completes the coordinate line: "[other N MCP servers with M
	// tools can be found in <Where>. ...]"; "" means "the search index".
	Where string
	// MaxResults is how many results a fuzzy search returns (schemas and
	// one-line candidates) unless the call asks for another number
	// ("limit"), which may not exceed ResultLimit; without a limit, names
	// from deeper in the ranking follow within ListBudget. 0 means 5 (as
	// Claude Code) and 10.
	MaxResults  int
	ResultLimit int
	// MaxFullSchemas bounds how many full schemas one fuzzy search returns
	// (and so loads); further hits come back as one-line candidates. 0
	// means 3.
	MaxFullSchemas int
	// FullScoreRatio: a hit scoring below this fraction of the best hit's
	// score comes back as a candidate line, not a full schema, so a clear
	// winner comes alone and close siblings come together. 0 means 0.8
	// (chosen on the tune halves, docs/search-quality.md); set it negative
	// to give every hit up to MaxFullSchemas its schema.
	FullScoreRatio float64
	// ListBudget bounds, in characters, the compact list of further
	// candidates a fuzzy search adds below its results when the call sets
	// no "limit": one line per tool (its name and the first clause of its
	// description), best first, read from the ranking's first 30, so the
	// model can load the right one by name when the schemas shown are not
	// it. 0 means 1,000 (about the cost of one schema; chosen on the tune
	// halves, docs/search-quality.md); negative means no list.
	ListBudget int
	// ResponseCap bounds one response, in characters; 0 means 30,000
	// (1.5 × the default index budget).
	ResponseCap int
	// MaxNames bounds tool_names in one call; MaxQueries the strings of
	// queries; MaxQueryRunes the length of one query string. 0 means 20,
	// 10 and 2,000.
	MaxNames, MaxQueries, MaxQueryRunes int
	// Languages, when set, requires every fuzzy search to carry keywords
	// in each of these languages, e.g. {"zh", "en"} for a Chinese harness
	// over English catalogs (a lone Chinese word segments badly). Known:
	// "en" (and other Latin-script codes: "fr", "de", "es", ...), "zh",
	// "ja", "ko".
	Languages []string
	// Vocabulary holds extra synonym and glossary rules added to the
	// shipped ones, one rule per line ('#' starts a comment line):
	//
	//	a | b | c      the terms are interchangeable
	//	a => b | c     one way: a also searches b and c
	//
	// A term may be several words; a term written in CJK is a word of the
	// segmenter. Ignored when Ranker is set.
	Vocabulary []string
	// Ranker ranks fuzzy searches; nil means the built-in lexical ranker
	// with the vocabulary.
	Ranker Ranker
}

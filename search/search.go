package search

import "github.com/toolshelf/toolshelf/internal/toolsearch"

// ErrOptions reports an invalid [Options] value: request.NewSession returns
// it, wrapped, when the session's Config.Search cannot be honoured.
var ErrOptions = toolsearch.ErrOptions

// A Ranker builds a search index over tools:
//
//	Index(ctx context.Context, tools []*registry.Tool) (Index, error)
//
// Index is called once per searcher (and once per distinct set of tools a
// session announces mid-session). The built-in ranker is BM25F (BM25 over
// weighted fields, with stemming and a vocabulary of abbreviations, WordNet
// and a Chinese glossary; docs/search-quality.md); a harness with an
// embedding model brings its own, alone or fused with the built-in one by
// [Hybrid], and passes it as [Options.Ranker].
type Ranker = toolsearch.Ranker

// An Index ranks the tools it was built over:
//
//	Search(ctx context.Context, queries []string, limit int) ([]Hit, error)
//
// Search returns up to limit tools matching queries (the strings of one
// tool_search call, searched together), best first. Ties must be broken by
// name so that results are deterministic. A hit needs a positive score;
// Search may return fewer than limit hits, or none.
type Index = toolsearch.Index

// Hit is one ranked tool: its Name (the full name), its Score (higher is
// better; scores compare within one index only) and its [Fit]. A ranker
// that cannot say how credible a hit is leaves Fit zero, and its hits are
// never judged.
type Hit = toolsearch.Hit

// A Fit says how credible a [Hit] is, on scales that mean the same in every
// catalog, so that tool_search can say "nothing fits" instead of loading the
// schemas of the least bad tools; Fit.Credible applies the rule. Judged is
// false for a ranker that does not compute a fit (its hits are always
// credible); Evidence is the query mass the tool covers, in units of a word
// found in exactly one tool; Coverage the share of the query's mass it
// covers; Name the share of the tool's name the query covers. The built-in
// ranker fills it in (docs/search-quality.md says how).
type Fit = toolsearch.Fit

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
	// MaxResults is how many results a fuzzy search returns unless the call
	// asks for another number ("limit"), which may not exceed ResultLimit.
	// 0 means 5 (as Claude Code) and 10.
	MaxResults  int
	ResultLimit int
	// MaxFullSchemas bounds how many full schemas one fuzzy search returns
	// (and so loads); further hits come back as a one-line description,
	// then as names only. 0 means 3.
	MaxFullSchemas int
	// FullScoreRatio: a hit scoring below this fraction of the best hit's
	// score comes back as a one-line description, not a full schema, so a
	// clear winner does not drag weak runners-up into the context. 0 means
	// 0.5; set it negative to give every hit up to MaxFullSchemas its
	// schema.
	FullScoreRatio float64
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

// Options is the searcher's own options type, documented here: a
// conversion between the two compiles only while their fields agree.
var _ = (*toolsearch.Options)((*Options)(nil))

// Package search configures and extends tool_search, the tool a session
// offers for its deferred tools: the <available_deferred_tools> name index
// rendered into its description, and the exact and fuzzy lookup that loads
// deferred tools' schemas into a session.
//
// A harness sets [Options] (request.Config.Search) and reads what a session
// loaded through its LoadedNames; everything else happens inside the
// session (package request). The index lists built-in names first, then one group per MCP
// server — its header line, then its tools by their short names, the full
// name where a short one would not resolve to the tool alone — spent group
// by group within [Options].IndexBudget and closed by a coordinate line when
// a group had to go. A call with "tool_names" (or "select:A,B" in a query)
// loads exact names, full or short (an ambiguous short name answers with the
// candidates' full names); "queries" ranks. A fuzzy search loads schemas
// only as far as the evidence is sure (the best hit, and siblings scoring
// close to it), then lists further candidates — one line each for the
// first results, then names from deeper in the ranking — within
// [Options].ListBudget, so the model can load the right one by name; a
// miss goes down a ladder
// (exact → fuzzy → "nothing matched, try other words", with servers still
// connecting) and never comes back empty. "+word" requires a word; an
// operator that would empty the answer is relaxed, with a note. Every input
// is untrusted: bad calls get a model-facing message, never a panic.
//
// A fuzzy search says when nothing fits: when its best hit's [Fit] is not
// credible it answers in one line, naming the closest tools and loading
// none. A request with several needs gets each need's best tool up front,
// and the best hit's near twins come beside it with the words that tell them
// apart.
//
// Ranking is a [Ranker]. The built-in one (BM25F over the tools' fields)
// expands queries through WordNet and a vocabulary of abbreviations and a
// Chinese glossary, extended through [Options].Vocabulary; it needs no model
// and no network (docs/search-quality.md measures it). A harness brings its
// own ranker through [Options].Ranker — an [Index] built over the tools,
// returning [Hit] values — or fuses one with the built-in ranking by
// [Hybrid] (an embedding model's: integration/embeddings).
//
// The index over a plan's deferred tools is built once per plan and shared
// by every session of the plan; a session's self-built tools are searched
// through an index of its own, merged by score, so that no call ever
// rebuilds the shared index. It never drops a name to save space:
// descriptions may go, names stay. Only the plan's deferred tools (plus
// tools a session announces) are searched; hidden tools appear nowhere.
//
// `toolshelf search` runs tool_search on catalog files and explains a
// ranking; `toolshelf eval` measures it on a query file (recall@1, recall@5,
// MRR, schemas loaded) against plain BM25.
package search

// Package toolsearch is the engine behind the tool_search tool: the
// <available_deferred_tools> name index rendered into its description, and
// the exact and fuzzy lookup that loads deferred tools' schemas into a
// session. Package search is its public surface (the options a harness sets,
// the loaded set it reads, the ranker it may plug in); this package is what
// toolshelf's own stages use: request (a session's searcher, overlay and
// entry-tool definitions), budget (the same definitions, counted),
// cmd/toolshelf (`toolshelf search` and `toolshelf eval`) and internal/testkit/scale.
//
// A [Searcher] is built once per plan by [New]. [Searcher.IndexText] is the
// index block (built-in names first, then one group per MCP server — its
// header line, then its tools by their short names, the full name where a
// short one would not resolve to the tool alone — spent
// group by group within a budget and closed by a coordinate line when a
// group had to go); [DescriptionTemplate] and [Definition] make the tool_search
// definition around it — or, where a provider caps descriptions (OpenAI:
// 1,024 characters), [SystemIndexDescription] makes it without the index,
// which the session then carries in its system instructions; [WithShortNames]
// adds the sentence on short names when [Searcher.ShortNames] says the index
// lists some. [Searcher.Call] answers a call: "tool_names" (or
// "select:A,B" in a query) loads exact names, full or short (an ambiguous
// short name answers with the candidates' full names), "queries" ranks. A fuzzy
// search returns a few full schemas, then one-line descriptions, then names;
// a miss goes down a ladder (exact → fuzzy → "nothing matched, try other
// words", with servers still connecting) and never comes back empty. Every
// input is untrusted: bad calls get a model-facing message, never a panic.
//
// Ranking is a [search.Ranker]; the built-in [BM25F] expands queries through
// WordNet and a [Vocabulary] of abbreviations and a Chinese glossary
// shipped in data, extended through [search.Options.Vocabulary];
// [Searcher.Explain] shows how a tool scored. [Eval] measures a searcher
// on a query file (recall@1, recall@5, MRR, schemas loaded, per tune and
// check half) and [PlainBM25] is the reference it is compared with.
// "+word" requires a word and "select:" loads names; an operator that
// would empty the answer is relaxed, with a note.
//
// A fuzzy search says when nothing fits: when its best hit's [search.Fit] is not
// credible it answers in one line, naming the closest tools and loading
// none. A request with several needs gets each need's best tool up front,
// and the best hit's near twins come beside it with the words that tell
// them apart. search.Hybrid fuses the lexical ranking with a second one (an
// embedding model's, integration/embeddings) by reciprocal rank.
//
// The index over the plan's deferred tools is built once, by [New], and
// shared by every session of the plan; a session's self-built tools are
// searched through its own small [Overlay], merged by score, so that no
// call ever rebuilds the shared index.
//
// It never drops a name to save space: descriptions may go, names stay.
// Only the plan's deferred tools (plus tools a session announces) are
// searched; hidden tools appear nowhere.
//
// What a session uses: [New], [Searcher], [Scope], [LoadedSet], [Overlay],
// [Definition] and the description helpers; it takes a [search.Options].
// What ranks: [BM25F], [Vocabulary], [Abstains], over the plug-in types
// package search defines ([search.Ranker], [search.Index], [search.Hit],
// [search.Fit]). What explains a ranking:
// [Explanation] and its score types. What measures one: [Eval],
// [EvalIndex], [EvalQuery], [ReadQueries], [Report], [Figures],
// [Abstention], [Miss], [Half], [PlainBM25], [PlanCatalogs], as toolshelf
// eval and the quality tests run them.
package toolsearch

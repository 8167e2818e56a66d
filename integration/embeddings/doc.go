// Package embeddings is a [search.Ranker] backed by any OpenAI-compatible
// /v1/embeddings endpoint: OpenAI's, Azure's, or a local Ollama, vLLM, TEI
// or llama.cpp server. Fused with the lexical ranking by [search.Hybrid]
// (request.Config{Search: &search.Options{Ranker: &search.Hybrid{Second:
// r}}}, whose default weights favour this ranking 4:1), it lets
// tool_search find "kill the job" in a tool that says "cancel a workflow
// run".
//
// A tool's vector is computed once and cached by the hash of what was
// embedded (model, dimensions and the tool's text), in memory and, when
// Options.CacheDir is set, on disk: a changed tool is embedded again, the
// others never. A query's vector is computed per search.
//
// While the endpoint is down (failing, or hung), each search tries it
// again: it embeds the tools still missing and then the query, the two
// together bounded by one deadline of Options.Timeout from the search's
// start, with no lock held while it waits, so concurrent searches wait
// side by side, each for at most its own timeout, never in line behind
// one another. When the endpoint fails the search fails with
// [ErrEndpoint], and search.Hybrid answers with the lexical ranking alone
// (reporting the failure as an event); the first search after the endpoint
// answers again embeds what is missing, and the index keeps the vectors.
package embeddings

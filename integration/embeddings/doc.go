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
// others never. A query's vector is computed per search. Every call to the
// endpoint is bounded by Options.Timeout; when it fails, the search fails,
// and search.Hybrid answers with the lexical ranking alone.
package embeddings

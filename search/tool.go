package search

import "github.com/toolshelf/toolshelf/registry"

// DescriptionTemplate is the render template of tool_search's description.
// The session renders it once with the variable "index" bound to
// [Searcher.IndexText] and freezes the result.
//
// (Placeholder wording: refined by the search work.)
const DescriptionTemplate = `Search for deferred tools and load their schemas. Deferred tools are listed below by name; call tool_search with "queries" (keywords) or "tool_names" (exact names) to load a tool's schema, then call it with defer_execute.
{{raw .index}}`

// Tool returns the tool_search definition with the given rendered description.
func Tool(description string) registry.Tool {
	return registry.Tool{
		Name:         registry.ToolSearchName,
		Description:  description,
		RawSchema:    []byte(`{"type":"object","properties":{"queries":{"type":"array","items":{"type":"string"},"description":"Keywords describing the capability you need."},"tool_names":{"type":"array","items":{"type":"string"},"description":"Exact names of deferred tools to load."}}}`),
		DeferLoading: registry.DeferFalse,
	}
}

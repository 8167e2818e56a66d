package toolsearch

import (
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// DescriptionTemplate is the render template of tool_search's description.
// The session renders it once with the variable "index" bound to
// [Searcher.IndexText] and freezes the result. The wording is fixed (no
// option changes it), so the description is byte-stable across sessions
// with the same index.
const DescriptionTemplate = descriptionHead + "below" + descriptionRules + "\n{{raw .index}}"

// SystemIndexDescription is tool_search's description where the provider
// caps descriptions (OpenAI: 1,024 characters): the same text without the
// index, which the session carries in its system instructions instead,
// rendered once, in the frozen prefix.
const SystemIndexDescription = descriptionHead + "in the system instructions" + descriptionRules

const descriptionHead = "Load deferred tools. The tools named in <available_deferred_tools> "

const descriptionRules = descriptionCall + `
- {"tool_names": ["<name>", ...]} loads the named tools (exact names from the list) with their full parameters.
- {"queries": ["<keywords>"]} searches by capability when you do not know the name (e.g. ["create pull request"]); the best matches come back with their parameters, the others by name. Several strings are searched together. Prefix a word with + to require it.
Loaded tools stay loaded for the rest of the conversation; do not load them again.`

const descriptionCall = ` exist and can be called, but their parameters are not loaded yet: load a tool with tool_search first, then call it with defer_execute {"tool_name": "<name>", "params": {...}}.`

// shortNamesSentence says how a name the index lists under a server's
// header becomes a callable one (29 o200k tokens).
const shortNamesSentence = ` A name indented under "mcp__<server>:" is short for mcp__<server>__<name>; either works.`

// WithShortNames returns tmpl ([DescriptionTemplate] or
// [SystemIndexDescription]) with the sentence that says how a name listed
// under a server's header is called: the description of a searcher whose
// index lists such names ([Searcher.ShortNames]). An index without them
// does not pay for the sentence.
func WithShortNames(tmpl string) string {
	return strings.Replace(tmpl, descriptionCall, descriptionCall+shortNamesSentence, 1)
}

// toolSchema is tool_search's input schema.
const toolSchema = `{"type":"object","properties":{` +
	`"queries":{"type":"array","items":{"type":"string"},"description":"Keywords for the capability you need, e.g. [\"create pull request\"]. Use this or tool_names, not both."},` +
	`"tool_names":{"type":"array","items":{"type":"string"},"description":"Exact names of deferred tools to load, from <available_deferred_tools>."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":10,"description":"How many matches a query search returns (default 5)."}}}`

// Definition returns tool_search's definition with the given rendered
// description ([ExecuteDefinition] is defer_execute's, render.Description
// renders a built-in tool's text).
func Definition(description string) registry.Tool {
	return registry.Tool{
		Name:         registry.ToolSearchName,
		Description:  description,
		RawSchema:    []byte(toolSchema),
		DeferLoading: registry.DeferFalse,
	}
}

package toolsearch

// defer_execute's definition lives beside tool_search's ([Definition]): a
// session puts both entry tools in tools[] and package budget measures them;
// the dispatcher that runs defer_execute's calls is execute.Dispatcher.

import "github.com/toolshelf/toolshelf/registry"

// executeDescription is defer_execute's description: what the model reads to
// know when and how to call a deferred tool. Its wording is frozen with the
// prefix; change it only with a new version of the library.
const executeDescription = `Call a deferred tool: a tool listed by name in tool_search's index whose definition is not among your tools. First load its schema with tool_search, then call defer_execute with the tool's exact name in "tool_name" and its parameters in "params", a JSON object (not a string) that matches the loaded schema; use {} when it takes none. The result is the tool's own result. Call the tools in your tool list directly, not through defer_execute. A call of a tool whose schema you have not loaded does not run: it answers with the schema, so you can fix the params and call again. The same permissions and checks apply as to a direct call.`

// executeSchema is defer_execute's input schema, compact.
const executeSchema = `{"type":"object","properties":{"tool_name":{"type":"string","description":"Exact name of the deferred tool, as listed in the tool_search index."},"params":{"type":"object","description":"The tool's parameters as a JSON object matching the schema tool_search returned; {} if it takes none."}},"required":["tool_name","params"],"additionalProperties":false}`

// ExecuteDefinition returns the defer_execute definition a session puts in
// tools[]. Its Handler is nil: calls of defer_execute go to
// execute.Dispatcher.Call, which unwraps them.
func ExecuteDefinition() registry.Tool {
	return registry.Tool{
		Name:         registry.DeferExecuteName,
		OriginalName: registry.DeferExecuteName,
		Description:  executeDescription,
		RawSchema:    []byte(executeSchema),
		DeferLoading: registry.DeferFalse,
	}
}

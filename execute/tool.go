package execute

import "github.com/toolshelf/toolshelf/registry"

// Tool returns the defer_execute definition.
//
// (Placeholder wording: refined by the execute work.)
func Tool() registry.Tool {
	return registry.Tool{
		Name:         registry.DeferExecuteName,
		Description:  "Call a deferred tool by name after loading its schema with tool_search.",
		RawSchema:    []byte(`{"type":"object","properties":{"tool_name":{"type":"string"},"params":{"type":"object"}},"required":["tool_name","params"]}`),
		DeferLoading: registry.DeferFalse,
	}
}

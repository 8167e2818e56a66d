package registry

import (
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// Names the library reserves for its entry tools. No registered tool may use
// them; a harness reading a reply or an event tells the entry tools' calls by
// them.
const (
	ToolSearchName   = "tool_search"
	DeferExecuteName = "defer_execute"
)

// The naming rules themselves (the providers' name rule, MCP exposed names
// and their aliases, canonical server names, the fixed group names "builtin"
// and "self-built") are internal/engine/toolname's.
const (
	builtinGroup   = toolname.BuiltinGroup
	selfBuiltGroup = toolname.SelfBuiltGroup
)

// checkName returns nil when name is a valid tool name, or an error wrapping
// errInvalidName that quotes it and says what is allowed.
func checkName(name string) error {
	if toolname.Valid(name) {
		return nil
	}
	return fmt.Errorf("%w: %q: tool names must match ^[a-zA-Z0-9_-]{1,64}$", errInvalidName, clipName(name))
}

// checkGroupName validates an MCP server name: canonical
// (toolname.CanonicalGroup) and not a reserved group name.
func checkGroupName(name string) error {
	if !toolname.CanonicalGroup(name) {
		return fmt.Errorf("%w: group %q: server names must match ^[a-zA-Z0-9_-]{1,64}$, not contain \"__\", and not start or end with \"_\"", errInvalidName, clipName(name))
	}
	if name == builtinGroup || name == selfBuiltGroup {
		return fmt.Errorf("%w: group %q is the library's own", errReservedName, name)
	}
	return nil
}

// Aliased reports whether t's exposed name is an alias of its MCP server's
// own name: an MCP tool whose mcp__<server>__<tool> name broke the
// providers' name rule, so that the registry gave it a shorter one.
// OriginalName then holds the server's name. A rule or a log line written
// with the mcp__<server>__<tool> form does not reach an aliased tool; a
// harness that shows tools to a user shows both names.
func (t *Tool) Aliased() bool {
	return t.Source == SourceMCP && t.Name != toolname.MCPPrefix+t.Group+"__"+t.OriginalName
}

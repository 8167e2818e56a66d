package execute

import (
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// guardNames returns the names permission rules and hook patterns are
// matched against for a call of t by the name target: the name the model
// sent and, when that name is an alias (an MCP tool whose
// mcp__<server>__<tool> name breaks the providers' name rule and is
// exposed as an alias of it), the tool's real name, which is the
// name a harness writes its rules with. A rule on either name decides the
// call: without it,
// Deny(mcp__github__<59-character tool>) parsed but never matched the
// alias the model calls, and the handler ran.
func guardNames(target string, t *registry.Tool) (names [2]string, n int) {
	names[0] = target
	if t == nil || !t.Aliased() {
		return names, 1
	}
	names[1] = toolname.MCPPrefix + t.Group + "__" + t.OriginalName
	return names, 2
}

// selectsAny reports whether pattern p selects the call of t by one of
// names: an annotation pattern (@readonly) by t's trusted hints, a name
// pattern by any of the names.
func selectsAny(p string, names []string, t *registry.Tool) bool {
	for _, n := range names {
		if selects(p, n, t) {
			return true
		}
	}
	return false
}

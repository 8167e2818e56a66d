package registry

import "maps"

// Group is a set of tools that share a source and defaults: the built-in
// group, one group per MCP server, or the self-built group.
type Group struct {
	// Name is "builtin", "self-built", or the MCP server's name.
	Name string
	// Source is the kind of group.
	Source Source
	// Description says what the group offers; for an MCP server, the
	// server's own description. tool_search shows it in the index header.
	Description string
	// DefaultDefer applies to the group's tools whose own flag is unset
	// and that have no entry in Configs (mcp_toolset's default_config).
	DefaultDefer DeferLoading
	// Configs holds per-tool defer settings keyed by the tool's original
	// name (mcp_toolset's configs).
	Configs map[string]DeferLoading
	// AlwaysLoad pins every tool of the group resident, whatever its flags.
	AlwaysLoad bool
	// Tier is the default tier of the group's tools; empty means core.
	Tier Tier
	// TrustAnnotations makes the annotations of an MCP server's tools facts
	// that rules and modes rely on . Without it the
	// server's hints are ignored: its tools count as not read-only and
	// destructive, whatever they claim. Set it only for a server the
	// harness vouches for. Built-in tools are always trusted, self-built
	// ones never.
	TrustAnnotations bool
}

func (g Group) clone() Group {
	g.Configs = maps.Clone(g.Configs)
	return g
}

// rank orders groups: built-in, then MCP servers, then self-built.
func (g *Group) rank() int {
	switch g.Source {
	case SourceBuiltin:
		return 0
	case SourceMCP:
		return 1
	}
	return 2
}

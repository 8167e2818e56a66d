// Package regview derives facts about registry tools from their exported
// fields, for toolshelf's own stages: a tool's effective tier (defer's
// policy, request's live view) and whether its exposed name is an alias
// of the MCP server's own (defer's plan, execute's rules, the CLI's budget
// report). A harness reads the fields themselves.
package regview

import (
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// EffectiveTier returns t's tier, falling back to its group's g (which
// may be nil), then core.
func EffectiveTier(t *registry.Tool, g *registry.Group) registry.Tier {
	if t.Tier != "" {
		return t.Tier
	}
	if g != nil && g.Tier != "" {
		return g.Tier
	}
	return registry.TierCore
}

// Aliased reports whether t's exposed name is an alias of the server's own
// name (toolname.Alias): an MCP tool whose mcp__<server>__<tool> name broke
// the providers' name rule. OriginalName then holds the server's name.
func Aliased(t *registry.Tool) bool {
	return t.Source == registry.SourceMCP && t.Name != toolname.MCPPrefix+t.Group+"__"+t.OriginalName
}

// GroupOf returns the group of t in snapshot s, or nil.
func GroupOf(s *registry.Snapshot, t *registry.Tool) *registry.Group {
	g, _ := s.Group(t.Group)
	return g
}

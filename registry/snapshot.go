package registry

import (
	"cmp"
	"slices"
)

// Snapshot is an immutable view of a registry at one version. Its tools are
// ordered by (group, name): the built-in group first, then MCP servers by
// name, then the self-built group; names compare bytewise. The order never
// depends on registration order.
//
// A Snapshot and the tools it returns are shared: callers must not modify them.
type Snapshot struct {
	version uint64
	toolSet uint64 // see SameTools
	groups  []*Group
	tools   []*Tool
	byName  map[string]*Tool
	byGroup map[string]*Group
}

// Version returns the registry version this snapshot was taken at. Every
// change to a registry increases its version.
func (s *Snapshot) Version() uint64 { return s.version }

// Tools returns the tools in snapshot order. The slice is a copy; the tools
// are shared and must not be modified.
func (s *Snapshot) Tools() []*Tool { return slices.Clone(s.tools) }

// Tool returns the tool with the exposed name.
func (s *Snapshot) Tool(name string) (*Tool, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// Groups returns the groups in snapshot order, including groups with no tools.
func (s *Snapshot) Groups() []*Group { return slices.Clone(s.groups) }

// Group returns the group with the given name.
func (s *Snapshot) Group(name string) (*Group, bool) {
	g, ok := s.byGroup[name]
	return g, ok
}

// TierOf returns the tier t is in within s: its own Tier, else its group's,
// else [TierCore]. A view below [TierFull] leaves the full-tier tools out.
func (s *Snapshot) TierOf(t *Tool) Tier {
	if t.Tier != "" {
		return t.Tier
	}
	if g, ok := s.Group(t.Group); ok && g.Tier != "" {
		return g.Tier
	}
	return TierCore
}

// compareGroups orders groups by kind, then name.
func compareGroups(a, b *Group) int {
	if c := cmp.Compare(a.rank(), b.rank()); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

func sortGroups(gs []*Group) { slices.SortFunc(gs, compareGroups) }

func newSnapshot(version uint64, groups map[string]*Group, tools map[string]*Tool) *Snapshot {
	s := &Snapshot{
		version: version,
		byName:  make(map[string]*Tool, len(tools)),
		byGroup: make(map[string]*Group, len(groups)),
	}
	for name, g := range groups {
		s.groups = append(s.groups, g)
		s.byGroup[name] = g
	}
	sortGroups(s.groups)
	for name, t := range tools {
		s.tools = append(s.tools, t)
		s.byName[name] = t
	}
	slices.SortFunc(s.tools, func(a, b *Tool) int {
		if c := compareGroups(s.byGroup[a.Group], s.byGroup[b.Group]); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return s
}

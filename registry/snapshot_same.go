package registry

import "sync/atomic"

// toolSets numbers the distinct tool sets snapshots hold, process-wide, so
// that snapshots of two registries never share a number by chance.
var toolSets atomic.Uint64

// SameTools reports whether s and o hold the same tools: the very same
// tool values, and for every group both have, the same tier. They may
// differ in groups' descriptions and defer settings, and in groups without
// tools. A session following a registry answers a Sync with such a
// snapshot in O(1) instead of comparing it tool by tool (issue 34). It is
// never true of snapshots whose tools differ in any way, and it is false
// when either is nil.
func (s *Snapshot) SameTools(o *Snapshot) bool {
	return s != nil && o != nil && s.toolSet != 0 && s.toolSet == o.toolSet
}

// nextSnapshot builds the snapshot of version from groups and tools. When
// they hold the same tool values as prev, with the same group tiers, it
// shares prev's tool set (its number, its sorted slice and its index)
// instead of building and sorting them again: a registry change that
// left the tools alone (a group description) costs one pass over the
// tools, once per change, and marks the snapshots as [Snapshot.SameTools].
func nextSnapshot(prev *Snapshot, version uint64, groups map[string]*Group, tools map[string]*Tool) *Snapshot {
	if prev == nil || !sameToolSet(prev, groups, tools) {
		s := newSnapshot(version, groups, tools)
		s.toolSet = toolSets.Add(1)
		return s
	}
	s := &Snapshot{
		version: version, toolSet: prev.toolSet,
		tools: prev.tools, byName: prev.byName,
		byGroup: make(map[string]*Group, len(groups)),
	}
	for name, g := range groups {
		s.groups = append(s.groups, g)
		s.byGroup[name] = g
	}
	sortGroups(s.groups)
	return s
}

// sameToolSet reports whether tools are prev's tool values and every
// group of groups that prev has keeps its tier.
func sameToolSet(prev *Snapshot, groups map[string]*Group, tools map[string]*Tool) bool {
	if len(tools) != len(prev.byName) {
		return false
	}
	for name, t := range tools {
		if prev.byName[name] != t {
			return false
		}
	}
	for name, g := range groups {
		if old, ok := prev.byGroup[name]; ok && old.Tier != g.Tier {
			return false
		}
	}
	return true
}

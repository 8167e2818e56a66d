package request

import (
	"slices"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// LiveTools returns what the session's tools became through [Session.Sync]
// since it froze, for a harness (or package budget's AccountFor) to count:
//
//   - arrived: the tools that arrived and are shown now (deferred,
//     announced), sorted by name, as the session shows them;
//   - removed: the tools of the frozen plan (resident or deferred) that
//     left and have not come back, sorted by name: the prefix still
//     carries them (a resident definition, a deferred name);
//   - announced: the Sync announcement blocks (<new_deferred_tool>,
//     <tools_changed>) placed in the history since the session was created
//     or restored, in order; each is re-read with the history on every
//     later request. A block still waiting for the next user message is
//     not in it.
//
// Self-built tools (Session.RegisterSelfBuilt) are the model's own and not
// in it. A session whose tools never changed returns nil, nil, nil. The
// tools are the session's, read-only.
func (s *Session) LiveTools() (arrived, removed []*registry.Tool, announced []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.tools.std.entries {
		switch {
		case e.origin == originArrived && e.standing == standingShown:
			arrived = append(arrived, e.t)
		case e.origin == originFrozen && e.standing == standingRemoved && s.frozen.plan.State(e.t.Name) != deferral.Hidden:
			removed = append(removed, e.t)
		}
	}
	byName := func(a, b *registry.Tool) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(arrived, byName)
	slices.SortFunc(removed, byName)
	return arrived, removed, slices.Clip(s.liveSent)
}

// countSent keeps the Sync announcements among the notes about to be placed
// (LiveTools). s.mu must be held.
func (s *Session) countSent() {
	for _, n := range s.notes {
		if n.data.Live != nil {
			s.liveSent = append(s.liveSent, n.text)
		}
	}
}

package request

import (
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// Every change between two turns is one announcement (issue 34): 2,000
// tools/list_changed between two turns give the blocks of their net change
// — at most maxAnnouncedNames <new_deferred_tool> blocks and one
// <tools_changed> block per server, each line bounded with "and N more" —
// never one set per Sync.

// liveKind is what the turn's changes did to a tool, net.
type liveKind uint8

const (
	liveNone liveKind = iota
	liveArrived
	liveBack
	liveLeft
)

type liveNet struct {
	kind    liveKind
	updated bool
	t       *registry.Tool // the latest definition
}

// announceTurn merges pass p into the turn's changes and replaces the
// turn's Sync blocks with those of the merged change. s.mu must be held,
// after rebuildView.
func (s *Session) announceTurn(p *syncPass) {
	merged := mergePasses(s.turnPass, p)
	s.turnPass = merged
	notes := s.notes[:0:0]
	for _, n := range s.notes {
		if !n.turn {
			notes = append(notes, n)
		}
	}
	for _, n := range liveNoteList(s, s.announced(merged)) {
		n.turn = true
		notes = append(notes, n)
	}
	s.notes = notes
}

// mergePasses returns the net change of prev (nil: none) followed by p:
// a tool that arrived and left, or left and came back, between two turns
// is not announced; one updated twice is updated once. Each list is
// sorted by name, so the merged blocks do not depend on how the changes
// were split into passes.
func mergePasses(prev, p *syncPass) *syncPass {
	net := map[string]*liveNet{}
	get := func(t *registry.Tool) *liveNet {
		n := net[t.Name]
		if n == nil {
			n = &liveNet{}
			net[t.Name] = n
		}
		n.t = t
		return n
	}
	apply := func(q *syncPass) {
		for _, t := range q.arrived {
			get(t).kind = liveArrived
		}
		for _, t := range q.back {
			n := get(t)
			if n.kind == liveLeft {
				n.kind = liveNone // left and back within the turn: nothing to say
			} else {
				n.kind = liveBack
			}
		}
		for _, t := range q.left {
			n := get(t)
			switch n.kind {
			case liveArrived, liveBack:
				n.kind, n.updated = liveNone, false // never seen, or seen as it was
			default:
				n.kind, n.updated = liveLeft, false
			}
		}
		for _, t := range q.updated {
			if n := get(t); n.kind != liveArrived {
				n.updated = true // an arrival is announced with its latest definition
			}
		}
	}
	if prev != nil {
		apply(prev)
	}
	apply(p)
	out := &syncPass{}
	for _, n := range net {
		switch n.kind {
		case liveArrived:
			out.arrived = append(out.arrived, n.t)
		case liveBack:
			out.back = append(out.back, n.t)
		case liveLeft:
			out.left = append(out.left, n.t)
		}
		if n.updated {
			out.updated = append(out.updated, n.t)
		}
	}
	for _, l := range []*[]*registry.Tool{&out.arrived, &out.back, &out.left, &out.updated} {
		slices.SortFunc(*l, func(a, b *registry.Tool) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

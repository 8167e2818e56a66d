package request

import (
	"slices"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/visibility"
	"github.com/toolshelf/toolshelf/registry"
)

// This file is the session's one tool view (issue 34): every tool the
// session knows beyond the frozen plan — self-built, arrived, restored, and
// the frozen tools Sync changed (updated, removed) — with where it came
// from and its standing, decided once when it enters or changes (freeze,
// Sync, restore, approval, SetView; [Session.decide]) and read by every
// path through [Session.see]: Lookup and the dispatcher, tool_search's
// scope (results, "did you mean", gone lists), announcements, Client-mode
// answers and references, the loaded set a restore keeps. The frozen tools
// are decided by the plan, which SetView computes again.

// origin says where a tool of the view came from.
type origin uint8

const (
	originFrozen    origin = iota // the snapshot the prefix froze on
	originSelfBuilt               // RegisterSelfBuilt, or a restored self-built tool
	originArrived                 // adopted by Sync
	originRestored                // an arrival read back from stored state, not yet confirmed by Sync
)

// standing is what the model may do with a tool of the view.
type standing uint8

const (
	standingNone    standing = iota // not a tool of the session
	standingShown                   // seen and callable
	standingHidden                  // outside the mode or the tier: absent everywhere
	standingDenied                  // every call denied by the rules: absent everywhere
	standingRemoved                 // left the session; a call answers "removed"
	standingPending                 // restored, hidden until Sync confirms it
)

type viewEntry struct {
	t        *registry.Tool // the definition shown (an approved update included)
	origin   origin
	standing standing
}

// standings are the session's decisions on the tools beyond its frozen
// plan (the tool state's std; the session's deferral view, its mode and
// tier, is Session.view). Its slices are replaced on every change, never
// written in place: a tool_search reads them after the session's lock is
// released.
type standings struct {
	entries map[string]viewEntry
	shown   []*registry.Tool // shown self-built tools, then shown arrived tools, each in entry order
	updated []*registry.Tool // shown frozen deferred tools with an approved update, sorted
	gone    []string         // removed tools the model may be told about, sorted
}

// see is the one answer to "may the model see and call name": the
// definition the session shows, whether its schema is outside tools[],
// and its standing. Only standingShown may be called; standingRemoved is
// told as removed; every other standing is unknown to the model. s.mu must
// be held.
func (s *Session) see(name string) (t *registry.Tool, deferred bool, st standing) {
	if et := s.frozen.entry[name]; et != nil {
		return et, false, standingShown
	}
	if e, ok := s.tools.std.entries[name]; ok {
		return e.t, true, e.standing
	}
	switch s.frozen.plan.State(name) {
	case deferral.Resident, deferral.Deferred:
		// In a native mode the deferred tool's schema is in tools[]: the
		// provider loads it when its search finds it, and the model can
		// only call it then, so the dispatcher treats it as loaded. After
		// a view change a resident tool tools[] does not carry is
		// deferred: loaded with tool_search (viewchange.go).
		if t, ok := s.cfg.Snapshot.Tool(name); ok {
			return t, !s.frozen.carries(name), standingShown
		}
	case deferral.Hidden:
		return nil, false, standingHidden
	}
	return nil, false, standingNone
}

// decide is the admission decision for t, a definition entering or
// changing in the view: the mode, the tier and elevation (a tool of the
// frozen snapshot: the plan, which also carries the allow list and the
// rules at freeze), the dispatcher's rules on this definition, then
// whether it left the session. snap gives an arrived tool its group's
// tier. s.mu must be held.
func (s *Session) decide(t *registry.Tool, o origin, snap *registry.Snapshot) standing {
	switch o {
	case originFrozen:
		if s.frozen.plan.State(t.Name) == deferral.Hidden {
			return standingHidden
		}
	case originArrived, originRestored:
		if visibility.Tier(s.view.Tier, s.view.Elevated) != registry.TierFull && snap.TierOf(t) == registry.TierFull {
			return standingHidden
		}
	}
	if !visibility.Allows(s.view.Mode.Allow, s.view.Mode.ReadOnly, t) {
		return standingHidden
	}
	if s.denied(t) {
		return standingDenied
	}
	if s.tools.live != nil {
		if s.tools.live.removed[t.Name] {
			return standingRemoved
		}
		if s.tools.live.unconfirmed[t.Name] {
			return standingPending
		}
	}
	return standingShown
}

// tierSnapshot is the snapshot whose groups give arrived tools their tier:
// the last one Sync adopted. s.mu must be held.
func (s *Session) tierSnapshot() *registry.Snapshot {
	if s.synced != nil {
		return s.synced
	}
	return s.cfg.Snapshot
}

// rebuildView decides every tool of the view again: after a tool enters
// or changes, and after SetView. It costs one pass over the session's own
// tools; a session without any keeps the frozen names. s.mu must be held.
func (s *Session) rebuildView() {
	s.viewGen++
	if !s.tools.own() && s.tools.live == nil {
		s.tools.std = standings{}
		return
	}
	snap := s.tierSnapshot()
	v := standings{entries: make(map[string]viewEntry, len(s.tools.selfBuilt)+len(s.tools.arrived))}
	for i, t := range slices.Concat(s.tools.selfBuilt, s.tools.arrived) {
		o := originSelfBuilt
		if i >= len(s.tools.selfBuilt) {
			o = originArrived
			if s.tools.live != nil && s.tools.live.unconfirmed[t.Name] {
				o = originRestored
			}
		}
		def := t
		if s.tools.live != nil && s.tools.live.updated[t.Name] != nil {
			def = s.tools.live.updated[t.Name]
		}
		st := s.decide(def, o, snap)
		v.entries[t.Name] = viewEntry{t: def, origin: o, standing: st}
		if st == standingShown {
			v.shown = append(v.shown, def)
		}
	}
	if s.tools.live != nil {
		for name, u := range s.tools.live.updated {
			if _, ok := v.entries[name]; ok {
				continue
			}
			st := s.decide(u, originFrozen, snap)
			v.entries[name] = viewEntry{t: u, origin: originFrozen, standing: st}
			if st == standingShown && s.frozen.plan.State(name) == deferral.Deferred {
				v.updated = append(v.updated, u)
			}
		}
		for name := range s.tools.live.removed {
			if _, ok := v.entries[name]; ok {
				continue
			}
			if t, ok := s.cfg.Snapshot.Tool(name); ok {
				v.entries[name] = viewEntry{t: t, origin: originFrozen, standing: s.decide(t, originFrozen, snap)}
			}
		}
	}
	slices.SortFunc(v.updated, func(a, b *registry.Tool) int { return strings.Compare(a.Name, b.Name) })
	for name, e := range v.entries {
		if e.standing == standingRemoved {
			v.gone = append(v.gone, name)
		}
	}
	slices.Sort(v.gone)
	s.tools.std = v
}

// visibleNames returns every name the model can see, sorted: the frozen
// plan's and the view's shown tools. Built when asked (an unknown name's
// "did you mean", a short name): a copy per session of the frozen names
// would cost every session with a tool of its own the whole list. The
// frozen names alone are shared, read-only. s.mu must be held.
func (s *Session) visibleNames() []string {
	if len(s.tools.std.shown) == 0 {
		return s.frozen.visible
	}
	out := make([]string, 0, len(s.frozen.visible)+len(s.tools.std.shown))
	out = append(out, s.frozen.visible...)
	for _, t := range s.tools.std.shown {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// announced returns the part of pass p the model is told about: what the
// view shows, and what left that it showed. A tool hidden or denied
// changes silently. s.mu must be held, after rebuildView.
func (s *Session) announced(p *syncPass) *syncPass {
	keep := func(ts []*registry.Tool, want standing) []*registry.Tool {
		var out []*registry.Tool
		for _, t := range ts {
			if _, _, st := s.see(t.Name); st == want {
				out = append(out, t)
			}
		}
		return out
	}
	return &syncPass{
		arrived: keep(p.arrived, standingShown), back: keep(p.back, standingShown),
		left: keep(p.left, standingRemoved), updated: keep(p.updated, standingShown),
	}
}

package request

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// errNoPendingChange reports an approval or rejection of a change the
// session does not hold: no pending change of that tool, or one with
// another hash (the tool changed again since the harness looked).
var errNoPendingChange = errors.New("request: no such pending tool change")

// PendingChange is a change of a tool's definition that a session holds
// back: the session keeps showing and validating the definition it had
// until the harness approves ([Session.ApproveChange]) or rejects
// ([Session.RejectChange]) the change.
type PendingChange struct {
	// Tool is the tool's exposed name; Server its group (MCP server).
	Tool, Server string
	// OldSHA256 is the hash of the canonical definition the session shows,
	// NewSHA256 that of the registry's (hex SHA-256 of the canonical
	// definition: name, description, input schema and annotations, keys
	// sorted).
	OldSHA256, NewSHA256 string
	// Diff is a readable line diff of the two canonical definitions:
	// "- " lines are the session's, "+ " lines the registry's.
	Diff string
}

// liveSet is what a session adopted from its registry since it froze. It
// is nil until the first change, so that a session whose tools never
// change carries nothing.
type liveSet struct {
	removed  map[string]bool
	updated  map[string]*registry.Tool // approved definitions replacing the shown one
	pending  map[string]*pendingChange
	rejected map[string]*registry.Tool // rejected definitions, not raised again
	// unconfirmed are arrived tools restored from stored state that no
	// Sync has found in the harness's registry yet: hidden until one does.
	unconfirmed map[string]bool
	// servers are Config.Pending less the servers whose group arrived.
	servers    []string
	hasServers bool
	gen        int // bumped by every change (see liveGen)
}

type pendingChange struct {
	PendingChange
	def *registry.Tool // the registry's definition, adopted on approval
}

// syncPass is what one reconciliation found. With apply unset it stops at
// the first difference and allocates nothing.
type syncPass struct {
	apply   bool
	changed bool
	arrived []*registry.Tool
	back    []*registry.Tool
	left    []*registry.Tool
	updated []*registry.Tool
	raised  []*pendingChange
	dropped bool // a pending change ended (the server went back)
	// squatted are server tools that arrived under a self-built tool's
	// name: the self-built tool is in left, the server's not adopted.
	squatted []squat
}

type squat struct{ tool, server string }

// Sync adopts what changed in the registry since the session froze, given
// the registry's current snapshot:
//
//   - a tool that arrived (a late server, a reconnect with new tools, a
//     group the harness added) joins the session deferred, as a self-built
//     tool does: announced append-only in the next user message with its
//     server, searchable by tool_search, loadable and callable through
//     defer_execute at once, through the dispatcher's validation,
//     permission rules and hooks;
//   - a tool that left is announced; a call answers that it was removed,
//     its name stays in the frozen index and tool_search says it is gone;
//   - a tool whose description, schema or annotations changed is pinned:
//     the session keeps the definition it shows, and holds the change as a
//     [PendingChange], reported to the dispatcher as
//     "tool_changed" ([execute.Event]), until [Session.ApproveChange] or
//     [Session.RejectChange]. With [Config.AcceptChanges] a changed
//     deferred tool is taken as is and announced instead. A resident tool's
//     definition is in the frozen prefix: its change stays pending.
//
// The prefix never changes. A snapshot with nothing new adds no bytes and
// allocates nothing; one that holds the same tools as the last snapshot
// compared ([registry.Snapshot.SameTools]: a group's description changed,
// a server without tools came) answers in O(1) of the tools while the
// session's own state is unchanged, otherwise the comparison is a map
// lookup per tool. The change reports the names, sorted: Added (arrived,
// or back after leaving), Removed, and Changed (held pending, or taken as
// is); Server is empty, since one snapshot may change several servers.
//
// Tools outside the session's mode or tier are not adopted, as they would
// not be shown. In a native tool search mode, or a session without
// tool_search (nothing deferred and no [Config.SelfBuilt]), an arriving
// tool cannot be adopted and Sync reports an error wrapping [ErrConfig];
// nothing changes then.
//
// ctx is the caller's: the dispatcher's reports of held changes
// ("tool_changed" events, observer spans) run under it.
func (s *Session) Sync(ctx context.Context, snap *registry.Snapshot) (ToolsChange, error) {
	if snap == nil {
		return ToolsChange{}, fmt.Errorf("%w: Sync: nil snapshot", ErrConfig)
	}
	s.mu.Lock()
	if s.syncNoop(snap) {
		s.synced, s.syncedGen = snap, s.stateGen()
		s.mu.Unlock()
		return ToolsChange{}, nil
	}
	var probe syncPass
	s.reconcile(snap, &probe)
	if !probe.changed {
		s.synced, s.syncedGen = snap, s.stateGen()
		s.mu.Unlock()
		return ToolsChange{}, nil
	}
	p := syncPass{apply: true}
	s.reconcile(snap, &p)
	if len(p.arrived) > 0 && !s.takesArrivals() {
		s.rebuildView() // handlers the pass brought back
		s.syncedGen = 0 // the arrivals are still to be taken: never a no-op
		s.mu.Unlock()
		return ToolsChange{}, fmt.Errorf("%w: Sync: %d tools arrived (%s first), but this session cannot take tools after it started (%s); create sessions that follow a registry with Portable tool search and Config.SelfBuilt", ErrConfig, len(p.arrived), p.arrived[0].Name, s.whyNoArrivals())
	}
	change := s.adopt(snap, &p)
	s.logTools(change, "Sync")
	s.synced, s.syncedGen = snap, s.stateGen()
	raised, squatted := p.raised, p.squatted
	s.mu.Unlock()
	if obs := s.obs; obs != nil {
		for _, c := range raised {
			obs.Event(ctx, execute.Event{Kind: execute.EventToolChanged, Session: s.cfg.ID, Tool: c.Tool,
				Detail: fmt.Sprintf("definition changed on server %q (sha256 %s → %s); the session keeps the one it showed until the change is approved", c.Server, c.OldSHA256, c.NewSHA256)})
		}
		for _, q := range squatted {
			obs.Event(ctx, execute.Event{Kind: execute.EventToolChanged, Session: s.cfg.ID, Tool: q.tool,
				Detail: fmt.Sprintf("server %q arrived with a tool named like the session's self-built tool; neither runs under that name in this session (the self-built tool is withdrawn, the server's is not adopted): start a new session to use the server's tool", q.server)})
		}
	}
	return change, nil
}

// syncNoop reports, in O(1) of the tools, that snap cannot change what
// the session shows (issue 34): it holds the same tools and tiers as the
// snapshot the session last compared ([registry.Snapshot.SameTools]),
// the session's own state (view, live set) did not change since, and no
// pending server's group appeared (a check over Config.Pending, not the
// tools). A session that never synced compares with its frozen snapshot
// while it has no live state, as reconcile skips the frozen tools then.
// s.mu must be held.
func (s *Session) syncNoop(snap *registry.Snapshot) bool {
	switch {
	case s.synced == nil && s.tools.live == nil:
		if !snap.SameTools(s.cfg.Snapshot) {
			return false
		}
	case !snap.SameTools(s.synced) || s.syncedGen == 0 || s.syncedGen != s.stateGen():
		return false
	}
	if s.tools.live != nil && s.tools.live.hasServers || len(s.cfg.Pending) > 0 {
		for _, name := range s.pendingServers() {
			if _, ok := snap.Group(name); ok {
				return false
			}
		}
	}
	return true
}

// stateGen counts the changes of what reconcile reads besides the
// snapshot: the view (rebuilt on every change and by SetView) and the
// live set. Both only grow, so their sum changes whenever either does; it
// is never 0. s.mu must be held.
func (s *Session) stateGen() uint64 {
	return 1 + s.viewGen + uint64(s.tools.liveGen())
}

// takesArrivals reports whether the model could load and call a tool
// added now. s.mu must be held.
//
// In Client tool search mode an arrived tool, which is not in the frozen
// tools[], takes the portable path as a self-built tool does: it needs
// the session's defer_execute (Config.SelfBuilt).
func (s *Session) takesArrivals() bool {
	m := s.frozen.search
	if m == Client && s.frozen.entry[registry.DeferExecuteName] == nil {
		return false
	}
	return !m.native() && s.frozen.entry[registry.ToolSearchName] != nil
}

func (s *Session) whyNoArrivals() string {
	switch m := s.frozen.search; {
	case m.native():
		return fmt.Sprintf("tool search %q searches only tools[], which is frozen", m)
	case m == Client:
		return fmt.Sprintf("in tool search %q a tool not in the frozen tools[] is called through defer_execute, and this session has none (Config.SelfBuilt)", m)
	}
	return "its tools[] has no tool_search and defer_execute"
}

// shownTool returns the definition the session shows for name: the
// view's entry (an approved update, a tool added during the session), or
// the frozen snapshot's tool when the session's plan shows it. One map
// lookup: a Sync over n tools is O(n). s.mu must be held, the view built.
func (s *Session) shownTool(name string) (*registry.Tool, bool) {
	if e, ok := s.tools.std.entries[name]; ok {
		return e.t, true
	}
	if t, ok := s.cfg.Snapshot.Tool(name); ok && s.frozen.plan.State(name) != deferral.Hidden {
		return t, true
	}
	return nil, false
}

// admits reports whether the session would show t, a tool of snap that is
// not in its frozen snapshot: the view's admission decision, made as it
// arrives (a denied tool is not adopted, so nothing of it is announced).
func (s *Session) admits(t *registry.Tool, snap *registry.Snapshot) bool {
	if t.Source == registry.SourceSelfBuilt {
		return false // self-built tools are the session's own
	}
	return s.decide(t, originArrived, snap) == standingShown
}

// reconcile compares snap with what the session shows. Without p.apply it
// stops at the first difference and allocates nothing.
func (s *Session) reconcile(snap *registry.Snapshot, p *syncPass) {
	for t := range snap.All() {
		if s.reconcileTool(snap, t, p) && !p.apply {
			return
		}
	}
	for _, name := range s.frozen.visible {
		if s.frozen.entry[name] != nil || s.tools.removed(name) {
			continue
		}
		if _, ok := snap.Tool(name); !ok {
			if p.changed = true; !p.apply {
				return
			}
			t, _ := s.shownTool(name)
			p.left = append(p.left, t)
		}
	}
	for _, t := range s.tools.arrived {
		if s.tools.removed(t.Name) {
			continue
		}
		if _, ok := snap.Tool(t.Name); !ok {
			if p.changed = true; !p.apply {
				return
			}
			shown, _ := s.shownTool(t.Name)
			p.left = append(p.left, shown)
		}
	}
	if s.tools.live != nil && s.tools.live.hasServers || len(s.cfg.Pending) > 0 {
		for _, name := range s.pendingServers() {
			if _, ok := snap.Group(name); ok {
				p.changed = true
				return
			}
		}
	}
}

// reconcileTool compares one tool of snap with the session's and reports
// whether it differs.
func (s *Session) reconcileTool(snap *registry.Snapshot, t *registry.Tool, p *syncPass) bool {
	shown, known := s.shownTool(t.Name)
	if !known {
		if _, frozen := s.cfg.Snapshot.Tool(t.Name); frozen || !s.admits(t, snap) {
			return false // hidden from this session, as at its start
		}
		p.changed = true
		if p.apply {
			p.arrived = append(p.arrived, t)
		}
		return true
	}
	if s.tools.std.entries[t.Name].origin == originSelfBuilt {
		if t.Source == registry.SourceSelfBuilt || s.tools.removed(t.Name) {
			return false // the model's own tool keeps its name
		}
		// A server's tool arrived under a name the model's own tool took
		// before the server was known (issue 34): the name is contested.
		// Neither runs under it in this session: the model's tool leaves
		// (announced as removed, a call answers so) and the server's is
		// not adopted; the dispatcher hears of it as a "tool_changed"
		// event. Later Syncs leave the name alone.
		p.changed = true
		if p.apply {
			p.left = append(p.left, shown)
			p.squatted = append(p.squatted, squat{tool: t.Name, server: t.Group})
		}
		return true
	}
	if s.tools.removed(t.Name) {
		p.changed = true
		if p.apply {
			p.back = append(p.back, t)
			s.compareDefinition(snap, shown, t, p)
		}
		return true
	}
	if s.tools.live != nil && s.tools.live.unconfirmed[t.Name] {
		if !sameDefinition(shown, t) {
			// The harness rejected this very definition, or holds it
			// pending (the record's decisions, re-checked by content):
			// the arrival is not confirmed with it. It stays hidden
			// (standing pending) until the registry lists what the
			// session showed, or the harness approves the change.
			if r := s.tools.live.rejected[t.Name]; r != nil && sameDefinition(r, t) {
				return false
			}
			if c := s.tools.live.pending[t.Name]; c != nil && sameDefinition(c.def, t) {
				if c.def.Handler != nil || t.Handler == nil {
					return false
				}
				p.changed = true
				if p.apply {
					c.def = t // the handler, for an approval
				}
				return true
			}
		}
		p.changed = true
		if p.apply {
			// A stored definition is a claim (issue 34): the registry's
			// is the one the view decides on and shows. One that differs
			// from what the record says was shown is announced as updated.
			s.tools.confirm(shown, t)
			if !sameDefinition(shown, t) {
				p.updated = append(p.updated, t)
			}
		}
		return true
	}
	if shown == t {
		return false
	}
	return s.compareDefinition(snap, shown, t, p)
}

// compareDefinition handles a known tool whose registry definition t may
// differ from the shown one.
func (s *Session) compareDefinition(snap *registry.Snapshot, shown, t *registry.Tool, p *syncPass) bool {
	if sameDefinition(shown, t) {
		if shown.Handler == nil && t.Handler != nil {
			// Restored from stored state: the registry's tool, same
			// definition, brings the handler back.
			p.changed = true
			if p.apply {
				s.tools.attach(shown, t)
			}
			return true
		}
		if s.tools.live != nil && s.tools.live.pending[t.Name] != nil {
			p.changed = true // the server went back to what the session shows
			if p.apply {
				delete(s.tools.live.pending, t.Name)
				p.dropped = true
			}
			return true
		}
		return false
	}
	if s.tools.live != nil {
		if c := s.tools.live.pending[t.Name]; c != nil && sameDefinition(c.def, t) {
			if c.def.Handler == nil && t.Handler != nil {
				p.changed = true
				if p.apply {
					c.def = t
				}
				return true
			}
			return false
		}
		if r := s.tools.live.rejected[t.Name]; r != nil && sameDefinition(r, t) {
			return false
		}
	}
	p.changed = true
	if !p.apply {
		return true
	}
	if s.cfg.AcceptChanges && !s.inPrefix(t.Name) {
		p.updated = append(p.updated, t)
		return true
	}
	// Each canonical definition is made once: the hashes and the diff
	// read the same bytes.
	oc, nc := shown.CanonicalDefinition(), t.CanonicalDefinition()
	c := &pendingChange{def: t, PendingChange: PendingChange{
		Tool: t.Name, Server: t.Group,
		OldSHA256: canonicalSHA256(oc), NewSHA256: canonicalSHA256(nc),
		Diff: canonicalDiff(oc, nc),
	}}
	s.tools.liveSet().pending[t.Name] = c
	p.raised = append(p.raised, c)
	return true
}

// sameDefinition reports whether a and b, two definitions of one name,
// show the model the same tool: equal canonical definitions
// ([registry.Tool.CanonicalDefinition]). Equal fields give equal canonical
// bytes, so the common case (nothing changed) is decided without building
// them: a Sync that finds nothing new allocates nothing.
func sameDefinition(a, b *registry.Tool) bool {
	if a.Description != b.Description {
		return false
	}
	if bytes.Equal(a.RawSchema, b.RawSchema) && sameAnnotations(a.Annotations, b.Annotations) {
		return true
	}
	return bytes.Equal(a.CanonicalDefinition(), b.CanonicalDefinition())
}

func sameAnnotations(a, b *registry.Annotations) bool {
	if a == nil || b == nil {
		return a == b
	}
	eq := func(x, y *bool) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return a.Title == b.Title && eq(a.ReadOnlyHint, b.ReadOnlyHint) && eq(a.DestructiveHint, b.DestructiveHint) &&
		eq(a.IdempotentHint, b.IdempotentHint) && eq(a.OpenWorldHint, b.OpenWorldHint)
}

// pendingServers returns the MCP servers still connecting, for
// tool_search's misses. s.mu must be held.
func (s *Session) pendingServers() []string {
	if s.tools.live != nil && s.tools.live.hasServers {
		return s.tools.live.servers
	}
	return s.cfg.Pending
}

// adopt applies a reconciliation and queues its announcements. s.mu must
// be held.
func (s *Session) adopt(snap *registry.Snapshot, p *syncPass) ToolsChange {
	l := s.tools.liveSet()
	var c ToolsChange
	for _, t := range p.arrived {
		s.tools.arrived = append(s.tools.arrived, t)
		c.Added = append(c.Added, t.Name)
	}
	for _, t := range p.back {
		delete(l.removed, t.Name)
		c.Added = append(c.Added, t.Name)
	}
	for _, t := range p.left {
		l.removed[t.Name] = true
		delete(l.pending, t.Name)
		c.Removed = append(c.Removed, t.Name)
	}
	for _, t := range p.updated {
		s.tools.takeUpdate(t)
		c.Changed = append(c.Changed, t.Name)
	}
	for _, pc := range p.raised {
		c.Changed = append(c.Changed, pc.Tool)
	}
	servers := l.servers[:0:0]
	for _, name := range s.pendingServers() {
		if _, ok := snap.Group(name); !ok {
			servers = append(servers, name)
		}
	}
	// A pass that only confirmed restored tools or brought handlers back
	// changes nothing saved: a Conversation need not store it whole.
	if len(p.arrived)+len(p.back)+len(p.left)+len(p.updated)+len(p.raised) > 0 || p.dropped ||
		!l.hasServers || !slices.Equal(servers, l.servers) {
		l.gen++
	}
	l.servers, l.hasServers = servers, true
	s.synced = snap
	s.rebuildView()
	s.announceTurn(p)
	for _, f := range []*[]string{&c.Added, &c.Removed, &c.Changed} {
		slices.Sort(*f)
		*f = slices.Compact(*f)
	}
	return c
}

// PendingChanges returns the changes the session holds back, sorted by
// tool name.
func (s *Session) PendingChanges() []PendingChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools.live == nil {
		return nil
	}
	out := make([]PendingChange, 0, len(s.tools.live.pending))
	for _, c := range s.tools.live.pending {
		out = append(out, c.PendingChange)
	}
	slices.SortFunc(out, func(a, b PendingChange) int { return compareStrings(a.Tool, b.Tool) })
	return out
}

// ApproveChange adopts a pending change of tool: newSHA256 must be the
// [PendingChange.NewSHA256] the harness reviewed, so that a tool that
// changed again since is not approved unseen. The change is announced in
// the next user message, and the next load returns the new definition; the
// model must load it again before calling the tool. A resident tool's
// definition is in the frozen prefix: approving its change is an error
// wrapping [ErrConfig] (it takes effect in the next session).
func (s *Session) ApproveChange(tool, newSHA256 string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.pendingOf(tool, newSHA256)
	if err != nil {
		return err
	}
	if s.inPrefix(tool) {
		return fmt.Errorf("%w: ApproveChange %q: the tool's definition is in the frozen prefix (resident, or deferred in a native tool search mode); the change reaches the next session (RejectChange keeps this one as it is)", ErrConfig, tool)
	}
	if s.tools.live.unconfirmed[tool] {
		// A restored arrival held back by this change: approving it
		// confirms the tool with the registry's definition.
		shown, _ := s.shownTool(tool)
		s.tools.confirm(shown, c.def)
	}
	s.tools.takeUpdate(c.def)
	s.rebuildView()
	s.announceTurn(&syncPass{updated: []*registry.Tool{c.def}})
	s.logTools(ToolsChange{Changed: []string{tool}}, "ApproveChange")
	return nil
}

// RejectChange drops a pending change of tool: the session keeps the
// definition it shows, and the same definition is not raised again.
func (s *Session) RejectChange(tool, newSHA256 string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.pendingOf(tool, newSHA256)
	if err != nil {
		return err
	}
	delete(s.tools.live.pending, tool)
	s.tools.live.rejected[tool] = c.def
	s.tools.live.gen++
	return nil
}

func (s *Session) pendingOf(tool, sum string) (*pendingChange, error) {
	if s.tools.live == nil || s.tools.live.pending[tool] == nil {
		return nil, fmt.Errorf("%w: tool %q has no pending change", errNoPendingChange, tool)
	}
	c := s.tools.live.pending[tool]
	if c.NewSHA256 != sum {
		return nil, fmt.Errorf("%w: tool %q: the pending change is %s, not %s (the tool changed again; review the new one)", errNoPendingChange, tool, c.NewSHA256, sum)
	}
	return c, nil
}

// Removed reports whether name left the session's tool set ([Session.Sync]).
// A tool the session's current mode hides is not removed but unknown, as
// every hidden tool is.
func (d dispatchSession) Removed(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, _, st := d.see(name)
	return st == standingRemoved
}

var _ execute.LiveSession = dispatchSession{}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// inPrefix reports whether name's definition is in tools[]: a resident
// tool, or a deferred one in a native mode. Its change cannot be shown
// without moving the prefix. s.mu must be held.
func (s *Session) inPrefix(name string) bool {
	return s.frozen.carries(name)
}

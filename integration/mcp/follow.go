package mcp

import (
	"context"

	"github.com/toolshelf/toolshelf/request"
)

// Follow makes s follow the Manager's registry: s is synced now with the
// current snapshot, and again after every change the Manager makes (a late
// server's first listing, tools/list_changed, a reconnect with other
// tools), before [Options.OnToolsChanged] runs. Arrived tools join s
// deferred and callable at once, removed ones answer as removed, changed
// ones are pinned until the harness approves (see request.Session.Sync).
// A server that drops changes nothing until it is listed again: its tools
// stay and answer "unavailable, retry later".
//
// The returned function stops following; call it when the session ends,
// or the Manager keeps the session alive. Sync runs on the Manager's
// goroutine, and reports a changed tool to the session's dispatcher there:
// its Observer must not call back into the Manager's connect methods. A Sync error (a session that
// cannot take new tools) is logged and returned by [Manager.Sync]; it does
// not stop the Manager.
func (m *Manager) Follow(s *request.Session) (stop func()) {
	m.followMu.Lock()
	if m.followers == nil {
		m.followers = map[*request.Session]struct{}{}
	}
	m.followers[s] = struct{}{}
	m.followMu.Unlock()
	_, _ = m.Sync(context.Background(), s)
	return func() {
		m.followMu.Lock()
		delete(m.followers, s)
		m.followMu.Unlock()
	}
}

// Sync syncs s with the Manager's registry now: what a session that does
// not [Manager.Follow] calls before it builds a request. ctx is passed to
// [request.Session.Sync].
func (m *Manager) Sync(ctx context.Context, s *request.Session) (request.ToolsChange, error) {
	c, err := s.Sync(ctx, m.reg.Snapshot())
	if err != nil {
		m.opts.Logger.Warn("mcp: session cannot follow the registry", "err", err)
	}
	return c, err
}

// syncFollowers syncs every following session after a registry change.
// m.applyMu is held, so followers see changes in order.
func (m *Manager) syncFollowers() {
	m.followMu.Lock()
	ss := make([]*request.Session, 0, len(m.followers))
	for s := range m.followers {
		ss = append(ss, s)
	}
	m.followMu.Unlock()
	for _, s := range ss {
		// A registry change from the servers, not a call of the harness:
		// there is no caller's context.
		_, _ = m.Sync(context.Background(), s)
	}
}

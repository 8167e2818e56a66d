package request

import "github.com/toolshelf/toolshelf/registry"

// The tool state's side of Sync (live.go): what the session adopted from
// its registry, and the changes of its own tools' definitions.

// liveSet returns the session's live set, creating it. s.mu must be held.
func (ts *toolState) liveSet() *liveSet {
	if ts.live == nil {
		ts.live = &liveSet{
			removed: map[string]bool{}, updated: map[string]*registry.Tool{},
			pending: map[string]*pendingChange{}, rejected: map[string]*registry.Tool{},
			unconfirmed: map[string]bool{},
		}
	}
	return ts.live
}

// removed reports whether name left the session. s.mu must be held.
func (ts *toolState) removed(name string) bool {
	return ts.live != nil && ts.live.removed[name]
}

// attach gives a tool restored from stored state the registry's tool of
// the same definition, handler included.
func (ts *toolState) attach(shown, t *registry.Tool) {
	if ts.live != nil && ts.live.updated[t.Name] == shown {
		ts.live.updated[t.Name] = t
		return
	}
	for i, o := range ts.arrived {
		if o == shown {
			ts.arrived[i] = t
		}
	}
}

// confirm makes a restored arrived tool the session's again, now that the
// harness's registry holds it: the registry's tool, whatever the stored
// definition claimed. s.mu must be held.
func (ts *toolState) confirm(shown, t *registry.Tool) {
	delete(ts.live.unconfirmed, t.Name)
	for i, o := range ts.arrived {
		if o == shown {
			ts.arrived[i] = t
		}
	}
}

// takeUpdate makes t the definition the session shows for its name: the
// next load returns it, and the model must load it again before a call.
// s.mu must be held.
func (ts *toolState) takeUpdate(t *registry.Tool) {
	l := ts.liveSet()
	l.gen++
	l.updated[t.Name] = t
	delete(l.pending, t.Name)
	delete(l.rejected, t.Name)
	ts.unload(t.Name)
}

// liveGen counts the changes of the session's live set, so that a
// Conversation stores a whole record after one. s.mu must be held.
func (ts *toolState) liveGen() int {
	if ts.live == nil {
		return 0
	}
	return ts.live.gen
}

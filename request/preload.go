package request

import (
	"context"

	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// preloadSearch runs tool_search's search on the text of turn's last user
// message ([Config.Preload]) and returns the tools it is sure of, with the
// frozen prefix it searched: nil when preloading is off, the session's
// mode has no portable tool_search, or nothing is sure. The search runs
// without s.mu, as a tool_search call does; [Session.preload] decides,
// under the lock, what of it is attached.
func (s *Session) preloadSearch(turn Turn) ([]*registry.Tool, *frozenPrefix) {
	if !s.cfg.Preload {
		return nil, nil
	}
	text := ""
	for i := len(turn.Messages) - 1; i >= 0; i-- {
		if m := turn.Messages[i]; m.Role == RoleUser {
			text = m.Text
			break
		}
	}
	if text == "" {
		return nil, nil
	}
	s.mu.Lock()
	f := s.frozen
	announced, pending, removed := s.liveScope()
	s.mu.Unlock()
	if (f.search != Portable && f.search != "") || f.entry[registry.ToolSearchName] == nil || f.entry[registry.DeferExecuteName] == nil {
		return nil, nil
	}
	scope := toolsearch.Scope{Loaded: s.loaded, Announced: f.shortened, Overlay: &f.overlay, Pending: pending, Removed: removed}
	if len(announced) > 0 {
		scope.Announced, scope.Overlay = append(announced, f.shortened...), &s.overlay
	}
	// BuildRequest takes no context; the built-in ranker does not block.
	tools, err := f.searcher.Sure(context.Background(), text, scope)
	if err != nil {
		return nil, nil // a search that failed preloads nothing
	}
	return tools, f
}

// preload returns the block that attaches tools, and the names it loads:
// of tools, the ones the session's view shows now (through see, the one
// visibility path) as deferred with the same definition, and none when
// SetView changed the prefix since the search. s.mu must be held.
func (s *Session) preload(tools []*registry.Tool, f *frozenPrefix) (string, []string) {
	if len(tools) == 0 || f != s.frozen {
		return "", nil
	}
	var kept []*registry.Tool
	var names []string
	for _, t := range tools {
		shown, deferred, st := s.see(t.Name)
		if st != standingShown || !deferred || shown != t || s.loaded.Has(t.Name) {
			continue
		}
		kept = append(kept, t)
		names = append(names, t.Name)
	}
	if len(kept) == 0 {
		return "", nil
	}
	return f.searcher.PreloadBlock(kept), names
}

package request

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// preload returns the block that attaches the schemas of the tools
// tool_search is sure turn's last user message asks for ([Config.Preload]),
// and the names it loads: nothing when preloading is off, the session's
// mode has no portable tool_search, nothing is sure, or the turn would be
// refused anyway. A preload loads schemas as a tool_search does, so it
// runs through the dispatcher's guard on tool_search
// ([Session.guardLoad]): Deny(tool_search), or a hook that blocks it,
// stops it; a hook may narrow the names; the "searched" event says
// "preload". The search and the guard run under ctx, the caller's, and
// without s.mu, as a tool_search call does; what is attached is decided
// under the lock, through see (the one visibility path). The loaded set
// is marked only when the build succeeds (s.build).
func (s *Session) preload(ctx context.Context, turn Turn) (string, []string) {
	if !s.cfg.Preload {
		return "", nil
	}
	text := ""
	for i := len(turn.Messages) - 1; i >= 0; i-- {
		if m := turn.Messages[i]; m.Role == RoleUser {
			text = m.Text
			break
		}
	}
	if text == "" {
		return "", nil
	}
	s.mu.Lock()
	f := s.frozen
	portable := (f.search == Portable || f.search == "") && f.entry[registry.ToolSearchName] != nil && f.entry[registry.DeferExecuteName] != nil
	var scope toolsearch.Scope
	if portable {
		scope = s.searchScope(f)
	}
	s.mu.Unlock()
	if !portable {
		return "", nil
	}
	sure, err := f.searcher.Sure(ctx, text, scope)
	if err != nil || len(sure) == 0 {
		return "", nil // a search that failed preloads nothing
	}
	s.mu.Lock()
	// A turn the build refuses preloads nothing: its load would be
	// reported and never sent.
	msgs, _, err := s.place(turn)
	if err == nil {
		err = s.hist.check(msgs)
	}
	s.mu.Unlock()
	if err != nil {
		return "", nil
	}
	names := make([]string, len(sure))
	for i, t := range sure {
		names[i] = t.Name
	}
	var block string
	run := func(_ context.Context, args json.RawMessage) (registry.Result, []string) {
		// The names a hook left, of the ones the search was sure of.
		want := toolNames(args)
		s.mu.Lock()
		defer s.mu.Unlock()
		kept := s.preloadable(sure, f, want)
		if len(kept) == 0 {
			return registry.Result{Text: "nothing to preload"}, nil
		}
		block = f.searcher.PreloadBlock(kept)
		loaded := make([]string, len(kept))
		for i, t := range kept {
			loaded[i] = t.Name
		}
		return registry.Result{Text: "preloaded"}, loaded
	}
	res, loaded, ok := s.guardLoad(ctx, "preload", nil, names, run)
	if !ok || res.IsError || len(loaded) == 0 {
		return "", nil
	}
	return block, loaded
}

// preloadable returns the tools of sure named in want that the session's
// view shows now as deferred with the same definition, not loaded yet;
// none when SetView changed the prefix since the search. s.mu must be
// held.
func (s *Session) preloadable(sure []*registry.Tool, f *frozenPrefix, want []string) []*registry.Tool {
	if f != s.frozen {
		return nil
	}
	var kept []*registry.Tool
	for _, t := range sure {
		if !slices.Contains(want, t.Name) {
			continue
		}
		shown, deferred, st := s.see(t.Name)
		if st != standingShown || !deferred || shown != t || s.tools.isLoaded(t.Name) {
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

package request

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/visibility"
	"github.com/toolshelf/toolshelf/registry"
)

// Stored state is data. Whatever a store or a saved blob says, a restored
// session sees what its Config lets it see (restoredView), has loaded only
// what tool_search could have loaded for it (restoredLoaded), announces
// only what it renders itself from data (noteState) and resends an
// encoded history only once it has been read as exactly the list of
// messages it claims to be (checkEncodedHistory). The same checks serve
// RestoreSession and OpenConversation.

// note is an announcement not yet sent: the block, and the data it was
// rendered from, which is what is saved.
type note struct {
	text string
	data noteState
	turn bool // a block of the turn's merged Sync changes (Session.turnPass)
}

// noteState is a pending announcement as saved: data that the restored
// session renders again, never text it replays. Exactly one field is set.
// Later kinds of announcements add a field.
type noteState struct {
	// SelfBuilt names a self-built tool of the session ([announce]).
	SelfBuilt string `json:"self_built,omitempty"`
	// ToolsChanged is a server's tools change ([announceChange]).
	ToolsChanged *changeState `json:"tools_changed,omitempty"`
	// Live is a block of what [Session.Sync] adopted ([liveNoteList]).
	Live *liveNoteState `json:"live,omitempty"`
	// View is a <view_changed> block ([Session.SetView], viewchange.go).
	View *viewNoteState `json:"view,omitempty"`
}

// changeState is a [ToolsChange] as saved.
type changeState struct {
	Server  string   `json:"server"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Changed []string `json:"changed,omitempty"`
}

// notesData returns the saved form of notes: never nil, since a delta
// must be able to say "none".
func notesData(notes []note) []noteState {
	out := make([]noteState, len(notes))
	for i, n := range notes {
		out[i] = n.data
	}
	return out
}

// notesText returns the blocks of notes, as sent.
func notesText(notes []note) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.text
	}
	return out
}

// restoreNotes renders saved announcements again. s.mu need not be held:
// the session is not shared yet.
func (s *Session) restoreNotes(saved []noteState) error {
	s.notes = nil
	for i, d := range saved {
		var text string
		kinds := 0
		for _, set := range []bool{d.SelfBuilt != "", d.ToolsChanged != nil, d.Live != nil, d.View != nil} {
			if set {
				kinds++
			}
		}
		switch {
		case kinds != 1:
			return fmt.Errorf("pending_announcements[%d]: want one of self_built, tools_changed, live and view", i)
		case d.View != nil:
			if err := s.checkViewNote(d.View); err != nil {
				return fmt.Errorf("pending_announcements[%d]: %w", i, err)
			}
			text = viewNote(d.View)
		case d.SelfBuilt != "":
			k := slices.IndexFunc(s.tools.selfBuilt, func(t *registry.Tool) bool { return t.Name == d.SelfBuilt })
			if k < 0 {
				return fmt.Errorf("pending_announcements[%d]: self-built tool %.80q is not one of the session's", i, d.SelfBuilt)
			}
			text = announce(s.tools.selfBuilt[k])
		case d.Live != nil:
			t, err := s.renderLiveNote(d.Live)
			if err != nil {
				return fmt.Errorf("pending_announcements[%d]: %w", i, err)
			}
			text = t
		default:
			c := ToolsChange(*d.ToolsChanged)
			if err := checkToolsChange(c); err != nil {
				return fmt.Errorf("pending_announcements[%d]: %w", i, err)
			}
			text = announceChange(c)
		}
		s.notes = append(s.notes, note{text: text, data: d})
	}
	return nil
}

// restoredView returns the view a restored session starts with: cfg's,
// the harness's authority on every restore. A saved view that would show
// more than cfg's — another tier, no allow list or one with a pattern
// cfg's lacks, read-only tools cfg's mode hides — is refused; a narrower
// or equal one is left: cfg decides. A saved elevation survives only
// with cfg.RestoreElevation.
func restoredView(cfg *Config, saved viewState) (deferral.View, error) {
	v := cfg.View
	mode, tier := v.Mode, visibility.Tier(v.Tier, v.Elevated)
	switch saved.Tier {
	case "", registry.TierCore:
	case registry.TierFull:
		if tier != registry.TierFull {
			return v, fmt.Errorf("saved view: tier %q, Config.View's is %q: the Config decides what a session sees", saved.Tier, tier)
		}
	default:
		return v, fmt.Errorf("saved view: tier %.40q: want %q or %q", saved.Tier, registry.TierCore, registry.TierFull)
	}
	if len(mode.Allow) > 0 || mode.ReadOnly {
		if len(saved.Allow) == 0 && !saved.ReadOnly {
			return v, fmt.Errorf("saved view: no allow list, Config.View's mode %q has one: the Config decides what a session sees", mode.Name)
		}
		if saved.ReadOnly && !mode.ReadOnly {
			return v, fmt.Errorf("saved view: read-only tools allowed, Config.View's mode %q does not allow them: the Config decides what a session sees", mode.Name)
		}
		for _, p := range saved.Allow {
			if !slices.Contains(mode.Allow, p) {
				return v, fmt.Errorf("saved view: allow pattern %.80q is not in Config.View's mode %q: the Config decides what a session sees", p, mode.Name)
			}
		}
	}
	if saved.Elevated && cfg.RestoreElevation {
		v.Elevated = true
	}
	return v, nil
}

// restoreLoaded marks loaded the saved names that tool_search could load
// for this session: tools its view shows (the snapshot's and its
// self-built ones; a search marks resident tools it returns loaded too,
// which changes nothing for them). Others — hidden by a narrower Config,
// gone from the snapshot, unknown — are left out: a saved loaded set
// saves the model a search, never lets it call what a search under this
// Config would not load, and never passes a guard (validation,
// permission and hooks run on every call). The load itself answers to
// the dispatcher's guard on tool_search, as a search's does
// ([Session.guardLoad], reason "restore"): under Deny(tool_search), or a
// hook that blocks it, nothing is restored loaded, and a hook may narrow
// the names. ctx is the caller's (context.Background() for
// [RestoreSession]).
func (s *Session) restoreLoaded(ctx context.Context, names []string) {
	var keep []string
	s.mu.Lock()
	for _, n := range names {
		// A tool that arrived through Sync stays hidden until Sync with
		// the harness's snapshot confirms it; it keeps its loaded mark if
		// the view would show it then.
		if _, _, st := s.see(n); st == standingShown || st == standingPending {
			keep = append(keep, n)
		}
	}
	s.mu.Unlock()
	if len(keep) == 0 {
		return
	}
	run := func(_ context.Context, args json.RawMessage) (registry.Result, []string) {
		var out []string
		for _, n := range toolNames(args) {
			if slices.Contains(keep, n) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return registry.Result{Text: fmt.Sprintf("restored %d loaded schemas", len(out))}, out
	}
	res, loaded, ok := s.guardLoad(ctx, "restore", nil, keep, run)
	if ok && !res.IsError {
		s.tools.markLoaded(loaded...)
	}
}

// minEncodedMessage bounds a message's encoding from below, in every
// provider's shape: a saved count of messages is at most the size of the
// encoded history over it.
const minEncodedMessage = len(`{"role":"user"}`)

// checkEncodedHistory validates an encoded history read back from
// storage (a [Store]'s records or [Session.MarshalState]'s
// encoded_history) as if new: buf is a comma-separated list of JSON
// objects, each one exactly one element of the request's message array
// (not a first and a last byte that happen to be braces), in enc's shape;
// count, last and pending fit it.
func checkEncodedHistory(enc encoder, buf []byte, count int, last Role, pending []string) error {
	if count < 0 || count > len(buf)/minEncodedMessage || (count == 0) != (len(buf) == 0) {
		return fmt.Errorf("a count of %d messages does not fit an encoded history of %d bytes", count, len(buf))
	}
	switch last {
	case "", RoleUser, RoleAssistant, RoleTool:
	case roleNativeAfter:
		if enc.traits().changes == nil {
			return fmt.Errorf("last role %q: provider has no native tool changes", last)
		}
	default:
		return fmt.Errorf("last role %.40q: want user, assistant or tool", last)
	}
	if (last == "") != (count == 0) {
		return fmt.Errorf("last role %q does not fit %d messages", last, count)
	}
	for _, id := range pending {
		if id == "" || !utf8.ValidString(id) {
			return errors.New("pending calls: an id is empty or not valid UTF-8")
		}
	}
	if len(buf) == 0 {
		return nil
	}
	if !objectList(buf) || !enc.historyShaped(buf) {
		return errors.New("the encoded history is not a list of messages")
	}
	return nil
}

// objectList reports whether b is valid UTF-8 and a comma-separated list
// of JSON objects: what goes between the brackets of an array of them.
// It splits b at the commas outside strings and brackets and checks each
// piece as one JSON value: the list is valid exactly when every piece is.
func objectList(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	depth, start := 0, 0
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			if !oneObject(b[start:i]) {
				return false
			}
			start = i + 1
		}
	}
	return oneObject(b[start:])
}

// oneObject reports whether b is exactly one JSON object.
func oneObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

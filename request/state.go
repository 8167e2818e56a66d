package request

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/registry"
)

// stateVersion is the version of the saved-state format. Version 4 is a
// session that dropped its messages ([Config.DropMessages]): it saves the
// encoded history instead. A session that keeps them writes version 3.
// Versions 1 and 2 saved pending announcements as text, replayed as it
// was: they are refused (announcements are data since version 3).
const (
	stateVersion        = 3
	stateVersionEncoded = 4
)

// state is the saved form of what a session owns beyond its Config.
type state struct {
	Version   int             `json:"version"`
	View      viewState       `json:"view"`
	Loaded    []string        `json:"loaded,omitempty"`
	SelfBuilt []selfBuiltTool `json:"self_built,omitempty"`
	Notes     []noteState     `json:"pending_announcements,omitempty"`
	Messages  []Message       `json:"messages,omitempty"`
	Encoded   *encodedHistory `json:"encoded_history,omitempty"`
	Live      *liveState      `json:"live,omitempty"` // what Sync adopted (live_state.go)
	// PreviousReply is the reply id the next request names for the
	// provider's cache diagnosis (Config.Diagnostics); absent before.
	PreviousReply string     `json:"previous_reply_id,omitempty"`
	Sent          *sentState `json:"sent,omitempty"` // the digest chain of what was sent (sendcheck.go)
}

// encodedHistory is the history of a session that dropped its messages:
// the provider's encoding, exactly as it is resent.
type encodedHistory struct {
	Provider Provider `json:"provider"`
	// Body is the encoded messages, comma-separated, as in the request. It
	// is a JSON string, not raw JSON, so that a store that normalises JSON
	// (reordering keys, say) cannot change the bytes to resend.
	Body    string   `json:"body"`
	Count   int      `json:"count"`
	Last    Role     `json:"last_role,omitempty"`
	Pending []string `json:"pending_calls,omitempty"`
}

type viewState struct {
	Mode     string        `json:"mode,omitempty"`
	Allow    []string      `json:"allow,omitempty"`
	ReadOnly bool          `json:"read_only,omitempty"`
	Tier     registry.Tier `json:"tier,omitempty"`
	Elevated bool          `json:"elevated,omitempty"`
}

type selfBuiltTool struct {
	Name        string                `json:"name"`
	Description string                `json:"description"`
	InputSchema json.RawMessage       `json:"input_schema"`
	Annotations *registry.Annotations `json:"annotations,omitempty"`
	SearchHints []string              `json:"search_hints,omitempty"`
}

// MarshalState saves what the session owns beyond its [Config] — view and
// elevation, loaded tools, self-built tools, announcements not yet sent
// and the history — as JSON, for the harness's own conversation store.
// Self-built tools' handlers are not saved; see [RestoreSession].
func (s *Session) MarshalState() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.saved()
	if err != nil {
		return nil, err
	}
	return jsonx.Marshal(st)
}

// saved returns the session's state. s.mu must be held.
func (s *Session) saved() (state, error) {
	msgs, err := s.hist.all()
	if err != nil {
		return state{}, wrapErr(ErrState, err, "")
	}
	st := state{
		Version:  stateVersion,
		View:     viewOf(s.view),
		Loaded:   s.tools.loadedNames(),
		Messages: msgs,
	}
	if s.hist.dropped {
		st.Version = stateVersionEncoded
		st.Encoded = &encodedHistory{Provider: s.cfg.Provider, Body: string(s.hist.buf), Count: s.hist.count(), Last: s.hist.last, Pending: s.hist.pending}
	}
	if len(s.notes) > 0 {
		st.Notes = notesData(s.notes)
	}
	st.SelfBuilt, st.Live = savedTools(s.tools.selfBuilt), s.savedLive()
	st.PreviousReply = s.log.prevReply
	c, err := chainOf(s.frozen.sent(), s.hist.buf)
	if err != nil {
		return state{}, wrapErr(ErrState, err, "")
	}
	st.Sent = &c.sentState
	st.Sent.Provider = s.cfg.Provider
	return st, nil
}

// savedTools returns the saved form of self-built tools ts (nil for none).
func savedTools(ts []*registry.Tool) []selfBuiltTool {
	var out []selfBuiltTool
	for _, t := range ts {
		out = append(out, selfBuiltTool{
			Name: t.Name, Description: t.Description, InputSchema: t.RawSchema,
			Annotations: t.Annotations, SearchHints: t.SearchHints,
		})
	}
	return out
}

// RestoreSession creates a session from cfg and the output of
// [Session.MarshalState], possibly in another process: with the same cfg
// it builds the same bytes as the session that was saved.
//
// The saved state is data, read as if new: cfg decides what the session
// sees. The session's view is cfg.View; a saved view that would show more
// (another tier, a wider or missing allow list) is an error wrapping
// [ErrState], a narrower one is left out, and a saved elevation survives
// only with cfg.RestoreElevation. Loaded tools the view hides are left
// out, announcements are rendered again from what they
// announce, and the messages are checked as new ones. handlers, which may
// be nil, gives self-built tools their handlers back by name.
//
// A session that followed its registry ([Session.Sync]) comes back with
// what it adopted; its arrived tools stay hidden until Sync with the
// harness's current snapshot finds them, so call Sync before the next
// request.
func RestoreSession(cfg Config, saved []byte, handlers map[string]registry.Handler) (*Session, error) {
	var st state
	if err := json.Unmarshal(saved, &st); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrState, err)
	}
	if st.Version != stateVersion && st.Version != stateVersionEncoded {
		return nil, fmt.Errorf("%w: version %d, this library reads versions %d and %d (versions 1 and 2 are refused: their announcements were text)", ErrState, st.Version, stateVersion, stateVersionEncoded)
	}
	if st.Version == stateVersion && st.Encoded != nil {
		return nil, fmt.Errorf("%w: version %d saves messages, not an encoded history", ErrState, stateVersion)
	}
	if st.Version == stateVersionEncoded && (st.Encoded == nil || len(st.Messages) > 0) {
		return nil, fmt.Errorf("%w: version %d saves an encoded history and no messages", ErrState, stateVersionEncoded)
	}
	return restoreState(context.Background(), cfg, &st, handlers, nil)
}

// restoreState creates a session from cfg and saved state. stored, when
// not nil, is the history as a [Store] kept it, encoded for cfg.Provider:
// it is adopted instead of st.Messages, which is then empty.
func restoreState(ctx context.Context, cfg Config, st *state, handlers map[string]registry.Handler, stored *storedHistory) (*Session, error) {
	view, err := restoredView(&cfg, st.View)
	if err != nil {
		return nil, wrapErr(ErrState, err, "")
	}
	if st.Live != nil && st.Live.Frozen != nil {
		snap, err := frozenSnapshot(cfg.Snapshot, st.Live.Frozen)
		if err != nil {
			return nil, fmt.Errorf("%w: live: %w", ErrState, err)
		}
		cfg.Snapshot = snap
	}
	drop := cfg.DropMessages
	cfg.DropMessages = false // the messages are restored first
	s, err := NewSession(cfg)
	if err != nil {
		return nil, err
	}
	s.cfg.DropMessages = drop
	check := registry.New(cfg.Limits)
	if len(st.SelfBuilt) > 0 {
		// What RegisterSelfBuilt refuses, a store cannot add.
		if m := s.frozen.search; m.native() {
			return nil, fmt.Errorf("%w: self-built tools in a session whose tool search is %q", ErrState, m)
		}
		if s.frozen.entry[registry.ToolSearchName] == nil {
			return nil, fmt.Errorf("%w: self-built tools in a session without tool_search and defer_execute (Config.SelfBuilt)", ErrState)
		}
	}
	for _, sb := range st.SelfBuilt {
		t, err := check.CheckSelfBuilt(registry.Tool{
			Name: sb.Name, Description: sb.Description, RawSchema: sb.InputSchema,
			Annotations: sb.Annotations, SearchHints: sb.SearchHints, Handler: handlers[sb.Name],
		})
		if err != nil {
			return nil, wrapErr(ErrState, err, "")
		}
		if err := s.addOwn(&t, originSelfBuilt); err != nil {
			return nil, wrapErr(ErrState, err, "")
		}
	}
	if err := s.restoreLive(st.Live); err != nil {
		return nil, fmt.Errorf("%w: live: %w", ErrState, err)
	}
	// The prefix is the one the session froze on (Config.View) and kept
	// through its view changes; the view is the restored one.
	if err := s.applyView(view, false); err != nil {
		return nil, err
	}
	s.restoreLoaded(ctx, st.Loaded)
	switch {
	case st.Encoded != nil:
		if err := s.restoreEncoded(st.Encoded); err != nil {
			return nil, fmt.Errorf("%w: encoded_history: %w", ErrState, err)
		}
	case stored != nil:
		if err := s.hist.adopt(stored); err != nil {
			return nil, wrapErr(ErrState, err, "")
		}
	default:
		if err := s.hist.check(st.Messages); err != nil {
			return nil, wrapErr(ErrState, err, "")
		}
		s.hist.add(st.Messages)
	}
	if err := s.restoreNotes(st.Notes); err != nil {
		return nil, wrapErr(ErrState, err, "")
	}
	if err := s.restorePreviousReply(st); err != nil {
		return nil, wrapErr(ErrState, err, "")
	}
	if err := s.tellRestoredView(st.View, view); err != nil {
		return nil, err
	}
	if err := s.checkRestored(st.Sent); err != nil {
		return nil, wrapErr(ErrState, err, "")
	}
	if drop {
		s.dropMessages()
	}
	return s, nil
}

// restoreEncoded puts back a history saved by a session that dropped its
// messages. The saved state is the harness's, but it may have been damaged
// in store: it must be the session's provider's encoding, and the request
// built from it valid JSON.
func (s *Session) restoreEncoded(e *encodedHistory) error {
	if e.Provider != s.cfg.Provider {
		return fmt.Errorf("saved for provider %q, restored with %q: an encoded history is resent as it is, so the provider must be the same", e.Provider, s.cfg.Provider)
	}
	if err := checkEncodedHistory(s.hist.enc, []byte(e.Body), e.Count, e.Last, e.Pending); err != nil {
		return err
	}
	h := &s.hist
	h.dropped, h.entries, h.stored, h.nStored = true, nil, nil, 0
	h.buf = []byte(e.Body)
	h.nDropped, h.last, h.pending = e.Count, e.Last, slices.Clone(e.Pending)
	if e.Body != "" && !json.Valid(s.appendOutput(nil)) {
		return fmt.Errorf("body does not make a valid request")
	}
	return nil
}

package request

import (
	"encoding/json"
	"fmt"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/jsonx"
	"github.com/toolshelf/toolshelf/registry"
)

// stateVersion is the version of the saved-state format.
const stateVersion = 1

// state is the saved form of what a session owns beyond its Config.
type state struct {
	Version   int             `json:"version"`
	View      viewState       `json:"view"`
	Loaded    []string        `json:"loaded,omitempty"`
	SelfBuilt []selfBuiltTool `json:"self_built,omitempty"`
	Notes     []string        `json:"pending_announcements,omitempty"`
	Messages  []Message       `json:"messages,omitempty"`
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
		return state{}, fmt.Errorf("%w: %w", ErrState, err)
	}
	st := state{
		Version: stateVersion,
		View: viewState{
			Mode: s.view.Mode.Name, Allow: s.view.Mode.Allow, ReadOnly: s.view.Mode.ReadOnly,
			Tier: s.view.Tier, Elevated: s.view.Elevated,
		},
		Loaded:   s.loaded.Names(),
		Notes:    s.notes,
		Messages: msgs,
	}
	for _, t := range s.selfBuilt {
		st.SelfBuilt = append(st.SelfBuilt, selfBuiltTool{
			Name: t.Name, Description: t.Description, InputSchema: t.RawSchema,
			Annotations: t.Annotations, SearchHints: t.SearchHints,
		})
	}
	return st, nil
}

// RestoreSession creates a session from cfg and the output of
// [Session.MarshalState], possibly in another process: it builds the same
// bytes as the session that was saved. cfg.View is replaced by the saved
// view. handlers, which may be nil, gives self-built tools their handlers
// back by name.
func RestoreSession(cfg Config, saved []byte, handlers map[string]registry.Handler) (*Session, error) {
	var st state
	if err := json.Unmarshal(saved, &st); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrState, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("%w: version %d, this library reads version %d", ErrState, st.Version, stateVersion)
	}
	return restoreState(cfg, &st, handlers, nil)
}

// restoreState creates a session from cfg and saved state. stored, when
// not nil, is the history as a [Store] kept it, encoded for cfg.Provider:
// it is adopted instead of st.Messages, which is then empty.
func restoreState(cfg Config, st *state, handlers map[string]registry.Handler, stored *storedHistory) (*Session, error) {
	cfg.View = deferral.View{
		Mode: deferral.Mode{Name: st.View.Mode, Allow: st.View.Allow, ReadOnly: st.View.ReadOnly},
		Tier: st.View.Tier, Elevated: st.View.Elevated,
	}
	s, err := NewSession(cfg)
	if err != nil {
		return nil, err
	}
	check := registry.New(cfg.Limits)
	for _, sb := range st.SelfBuilt {
		t, err := check.PrepareSelfBuilt(registry.Tool{
			Name: sb.Name, Description: sb.Description, RawSchema: sb.InputSchema,
			Annotations: sb.Annotations, SearchHints: sb.SearchHints, Handler: handlers[sb.Name],
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrState, err)
		}
		if err := s.addSelfBuilt(&t); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrState, err)
		}
	}
	for _, n := range st.Loaded {
		s.loaded.Add(n)
	}
	if stored != nil {
		if err := s.hist.adopt(stored); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrState, err)
		}
	} else {
		if err := s.hist.check(st.Messages); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrState, err)
		}
		s.hist.add(st.Messages)
	}
	s.notes = st.Notes
	return s, nil
}

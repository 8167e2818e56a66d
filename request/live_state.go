package request

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// liveState is the saved form of what [Session.Sync] adopted: the tools
// that arrived (their definitions as the session shows them), the removed
// names, approved updates, pending changes and rejected definitions. It
// rides in [state] and so in MarshalState and a Store's records.
//
// Restoring validates it against the harness's configuration, never the
// other way round: every definition is normalized by a registry as if it
// were registered now, names must be the session's own (frozen and shown,
// or arrived), hashes must match their definitions, and a restored tool
// that arrived is hidden, as unknown, until [Session.Sync] finds it in the
// harness's registry (whose handler it takes); one the registry lacks is
// then announced as removed. Modes and permission rules apply as to any
// tool.
type liveState struct {
	Arrived        []liveTool     `json:"arrived,omitempty"`
	Removed        []string       `json:"removed,omitempty"`
	Updated        []liveTool     `json:"updated,omitempty"`
	Pending        []pendingState `json:"pending,omitempty"`
	Rejected       []liveTool     `json:"rejected,omitempty"`
	PendingServers *[]string      `json:"pending_servers,omitempty"`
	// Frozen records the snapshot the prefix froze on, so that a replica
	// whose registry is newer rebuilds the same prefix (restore_frozen.go).
	Frozen *frozenRecord `json:"frozen,omitempty"`
}

// liveTool is a tool definition as a registry listed it.
type liveTool struct {
	Name         string                `json:"name"`
	OriginalName string                `json:"original_name,omitempty"`
	Group        string                `json:"group,omitempty"`
	MCP          bool                  `json:"mcp,omitempty"`
	Description  string                `json:"description"`
	InputSchema  json.RawMessage       `json:"input_schema,omitempty"`
	Annotations  *registry.Annotations `json:"annotations,omitempty"`
	SearchHints  []string              `json:"search_hints,omitempty"`
}

type pendingState struct {
	Tool       string   `json:"tool"`
	OldSHA256  string   `json:"old_sha256"`
	NewSHA256  string   `json:"new_sha256"`
	Diff       string   `json:"diff"`
	Definition liveTool `json:"definition"`
}

func savedLiveTool(t *registry.Tool) liveTool {
	return liveTool{
		Name: t.Name, OriginalName: t.OriginalName, Group: t.Group, MCP: t.Source == registry.SourceMCP,
		Description: t.Description, InputSchema: t.RawSchema, Annotations: t.Annotations, SearchHints: t.SearchHints,
	}
}

// savedLive returns the saved form of the session's live set, nil when
// Sync never changed anything. s.mu must be held.
func (s *Session) savedLive() *liveState {
	l := s.tools.live
	if l == nil {
		return nil
	}
	st := &liveState{Removed: slices.Sorted(maps.Keys(l.removed)), Frozen: savedFrozen(s.cfg.Snapshot)}
	for _, t := range s.tools.arrived {
		st.Arrived = append(st.Arrived, savedLiveTool(t))
	}
	for _, name := range sortedKeys(l.updated) {
		st.Updated = append(st.Updated, savedLiveTool(l.updated[name]))
	}
	for _, name := range sortedKeys(l.pending) {
		c := l.pending[name]
		st.Pending = append(st.Pending, pendingState{Tool: c.Tool, OldSHA256: c.OldSHA256, NewSHA256: c.NewSHA256, Diff: c.Diff, Definition: savedLiveTool(c.def)})
	}
	for _, name := range sortedKeys(l.rejected) {
		st.Rejected = append(st.Rejected, savedLiveTool(l.rejected[name]))
	}
	if l.hasServers {
		servers := slices.Clone(l.servers)
		st.PendingServers = &servers
	}
	return st
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// restoreLiveTool normalizes a saved definition as a registry would have
// when it was listed, and checks that it keeps its saved name.
func restoreLiveTool(lt liveTool) (*registry.Tool, error) {
	r := registry.New(&registry.Options{StrictImport: true})
	t := registry.Tool{Name: lt.Name, Description: lt.Description, RawSchema: lt.InputSchema, Annotations: lt.Annotations, SearchHints: lt.SearchHints}
	var err error
	if lt.MCP {
		t.Name = lt.OriginalName
		err = r.ReplaceGroup(registry.Group{Name: lt.Group}, []registry.Tool{t})
	} else {
		if lt.Group != "" && lt.Group != toolname.BuiltinGroup {
			return nil, fmt.Errorf("tool %q: group %q is neither an MCP server nor built-in", lt.Name, lt.Group)
		}
		err = r.Register(t)
	}
	if err != nil {
		return nil, err
	}
	nt, ok := r.Snapshot().Tool(lt.Name)
	if !ok {
		return nil, fmt.Errorf("tool %q: its original name %q and group %q give another name", lt.Name, lt.OriginalName, lt.Group)
	}
	return nt, nil
}

// restoreLive puts back what Sync adopted, after the self-built tools. s.mu
// need not be held: the session is not shared yet.
func (s *Session) restoreLive(st *liveState) error {
	if st == nil {
		return nil
	}
	if s.frozen.search.native() && len(st.Arrived) > 0 {
		return fmt.Errorf("arrived tools in a session with native tool search, which cannot take them")
	}
	l := s.tools.liveSet()
	for _, lt := range st.Arrived {
		t, err := restoreLiveTool(lt)
		if err != nil {
			return fmt.Errorf("arrived: %w", err)
		}
		if err := s.addOwn(t, originArrived); err != nil {
			return fmt.Errorf("arrived: %w", err)
		}
		l.unconfirmed[t.Name] = true
	}
	s.rebuildView() // shownTool reads the view
	for _, name := range st.Removed {
		if _, ok := s.shownTool(name); !ok || s.frozen.entry[name] != nil {
			return fmt.Errorf("removed: %q is not a tool of this session", name)
		}
		l.removed[name] = true
	}
	for _, lt := range st.Updated {
		if err := s.restoreUpdate(lt); err != nil {
			return fmt.Errorf("updated: %w", err)
		}
	}
	s.rebuildView()
	for _, ps := range st.Pending {
		if err := s.restorePending(ps); err != nil {
			return fmt.Errorf("pending: %w", err)
		}
	}
	for _, lt := range st.Rejected {
		t, err := s.restoreKnown(lt)
		if err != nil {
			return fmt.Errorf("rejected: %w", err)
		}
		l.rejected[t.Name] = t
	}
	if st.PendingServers != nil {
		for _, name := range *st.PendingServers {
			if !slices.Contains(s.cfg.Pending, name) {
				return fmt.Errorf("pending_servers: %q is not in Config.Pending", name)
			}
		}
		l.servers, l.hasServers = slices.Clone(*st.PendingServers), true
	}
	return nil
}

// restoreKnown restores a definition of a tool the session shows.
func (s *Session) restoreKnown(lt liveTool) (*registry.Tool, error) {
	t, err := restoreLiveTool(lt)
	if err != nil {
		return nil, err
	}
	if _, ok := s.shownTool(t.Name); !ok {
		return nil, fmt.Errorf("%q is not a tool of this session", t.Name)
	}
	return t, nil
}

func (s *Session) restoreUpdate(lt liveTool) error {
	t, err := s.restoreKnown(lt)
	if err != nil {
		return err
	}
	if s.inPrefix(t.Name) {
		return fmt.Errorf("%q: its definition is in the frozen prefix", t.Name)
	}
	s.tools.live.updated[t.Name] = t
	return nil
}

func (s *Session) restorePending(ps pendingState) error {
	t, err := s.restoreKnown(ps.Definition)
	if err != nil {
		return err
	}
	if t.Name != ps.Tool {
		return fmt.Errorf("tool %q holds a definition of %q", ps.Tool, t.Name)
	}
	shown, _ := s.shownTool(t.Name)
	if got := definitionSHA256(shown); got != ps.OldSHA256 {
		return fmt.Errorf("tool %q: old_sha256 %s is not the shown definition's %s", t.Name, ps.OldSHA256, got)
	}
	if got := definitionSHA256(t); got != ps.NewSHA256 {
		return fmt.Errorf("tool %q: new_sha256 %s is not its definition's %s", t.Name, ps.NewSHA256, got)
	}
	s.tools.live.pending[t.Name] = &pendingChange{def: t, PendingChange: PendingChange{
		Tool: t.Name, Server: t.Group, OldSHA256: ps.OldSHA256, NewSHA256: ps.NewSHA256, Diff: definitionDiff(shown, t),
	}}
	return nil
}

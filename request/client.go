package request

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/tagsafe"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/render"
)

// clientSearchHead and clientSearchRules make tool_search's description in
// [Client] mode: the provider loads what the search names, and the model
// calls a loaded tool by its own name (no defer_execute).
const (
	clientSearchHead  = "Load deferred tools. The tools named in <available_deferred_tools> "
	clientSearchRules = ` exist, but their parameters are not loaded yet: load a tool with tool_search first, then call it directly by its own name.
- {"tool_names": ["<name>", ...]} loads the named tools (exact names from the list).
- {"queries": ["<keywords>"]} searches by capability when you do not know the name (e.g. ["create pull request"]); the best matches are loaded. Several strings are searched together. Prefix a word with + to require it.
Loaded tools stay loaded for the rest of the conversation; do not load them again.`
	// clientShortNames says how a name the index lists under a server's
	// header is called: in this mode by its full name only, which is the
	// name the provider loads and the model calls.
	clientShortNames = `
A name indented under "mcp__<server>:" is short for mcp__<server>__<name>: load it by either, call it by the full name.`
)

// clientTools fills f's tools[] for [Client] mode: the resident tools
// (already there), tool_search with the index, defer_execute when the
// session takes self-built tools (their portable path), then every
// deferred tool with its schema, sent with "defer_loading": true.
func (f *frozenPrefix) clientTools(cfg *Config, vars render.Vars, caps bool) error {
	f.index = f.searcher.IndexText()
	session := maps.Clone(vars.Session)
	if session == nil {
		session = map[string]string{}
	}
	session[indexVar] = f.index
	rules := clientSearchRules
	if f.searcher.ShortNames() {
		rules += clientShortNames
	}
	tmpl := clientSearchHead + "below" + rules + "\n{{raw .index}}"
	if caps {
		tmpl = clientSearchHead + "in the system instructions" + rules
	}
	d, err := render.Description(&registry.Tool{Name: registry.ToolSearchName, Description: tmpl, Template: true}, render.Vars{Static: vars.Static, Session: session})
	if err != nil {
		return err
	}
	st := toolsearch.Definition(d)
	f.entry[st.Name] = &st
	f.tools = append(f.tools, frozenTool{Name: st.Name, Description: st.Description, Schema: jsonx.AppendCompact(nil, st.ModelSchema())})
	if cfg.SelfBuilt {
		_, et, err := entryTools("", vars, caps, false)
		if err != nil {
			return err
		}
		f.entry[et.Name] = et
		f.tools = append(f.tools, frozenTool{Name: et.Name, Description: et.Description, Schema: jsonx.AppendCompact(nil, et.ModelSchema())})
	}
	for _, t := range f.plan.Deferred() {
		d, err := render.Description(t, vars)
		if err != nil {
			return err
		}
		f.tools = append(f.tools, frozenTool{Name: t.Name, Description: d, Schema: jsonx.AppendCompact(nil, t.ModelSchema()), Deferred: true})
	}
	return nil
}

// Answer runs one tool call of the model, as [Session.Call] does, and
// returns the tool result message that answers it, ready for the next
// [Turn].
//
// In [Client] mode a tool_search call is answered in the provider's
// reference form: the message's ToolReferences name the deferred tools the
// search found, which the provider then loads from tools[] (Anthropic:
// tool_reference blocks in the tool_result; the Responses API: a
// tool_search_output item carrying their definitions), and the session
// counts them as loaded, so that the model may call them by name. On
// Anthropic a self-built tool the search found is described in the
// result's text and called with defer_execute, the portable path; on the
// Responses API its definition rides in the tool_search_output like the
// others. A search that finds nothing to load answers with text.
func (s *Session) Answer(ctx context.Context, c ToolCall) Message {
	m := Message{Role: RoleTool, CallID: c.ID}
	if c.ID != "" {
		// The handler, hooks and events find the call's ID as with
		// Session.Call given execute.WithCallID.
		ctx = execute.WithCallID(ctx, c.ID)
	}
	s.mu.Lock()
	f := s.frozen
	announced := s.tools.std.shown
	client := f.search == Client && c.Name == registry.ToolSearchName && f.entry[c.Name] != nil
	var scope toolsearch.Scope
	if client {
		scope = s.searchScope(f)
		// The answer references every tool this search returns in full,
		// whether or not an earlier search loaded it already.
		scope.Loaded = nil
	}
	s.mu.Unlock()
	if !client {
		res := s.Call(ctx, c.Name, c.Arguments)
		m.Text, m.IsError = res.Text, res.IsError
		return m
	}
	// The search is a call like the others (issue 26): the dispatcher's
	// permission rules, hooks and events decide it, as in Session.Call.
	run := func(ctx context.Context, args json.RawMessage) (registry.Result, []string) {
		return f.searcher.Load(ctx, args, scope)
	}
	res, found, _ := s.guardLoad(ctx, "", c.Arguments, nil, run)
	slices.Sort(found)
	var refs, own []string
	for _, n := range found {
		switch {
		case f.plan.State(n) == deferral.Deferred:
			refs = append(refs, n)
		case slices.ContainsFunc(announced, func(t *registry.Tool) bool { return t.Name == n }):
			own = append(own, n)
		}
	}
	s.tools.markLoaded(refs...)
	s.tools.markLoaded(own...)
	if s.hist.enc.traits().searchOutputCarriesTools {
		refs = append(refs, own...)
		own = nil
	}
	if len(refs) == 0 {
		// Nothing for the provider to load: the search's own answer
		// (a miss, a ladder step, a self-built tool's schema).
		m.Text, m.IsError = neutralized(res.Text), res.IsError
		return m
	}
	m.ToolReferences = refs
	if len(own) > 0 {
		// Self-built tools are not in tools[]: their schemas travel as
		// text, next to the references, and they are called through
		// defer_execute.
		args := []byte(`{"tool_names":[`)
		for i, n := range own {
			if i > 0 {
				args = append(args, ',')
			}
			args = jsonx.AppendString(args, n)
		}
		args = append(args, "]}"...)
		own := f.searcher.Call(ctx, args, toolsearch.Scope{Announced: announced})
		m.Text = neutralized(own.Text)
	}
	return m
}

// neutralized is a search answer made safe to quote, as [Session.Call]
// makes it: the one neutraliser, tagsafe.Text.
func neutralized(text string) string { return tagsafe.Text(text) }

// checkReferences accepts a message's ToolReferences: on a tool result
// only, in a [Client] session, each a tool the provider can load (one of
// tools[]'s deferred tools; on the Responses API a self-built tool too),
// each once, on a result that is not an error.
func (h *history) checkReferences(m *Message, at int) error {
	if len(m.ToolReferences) == 0 {
		return nil
	}
	if m.Role != RoleTool {
		return fmt.Errorf("%w: messages[%d]: tool_references belong to tool results", ErrInvalidMessage, at)
	}
	if h.msg.client == nil {
		return fmt.Errorf("%w: messages[%d]: tool_references need a session with Config.ToolSearch %q", ErrInvalidMessage, at, Client)
	}
	if m.IsError {
		return fmt.Errorf("%w: messages[%d]: a failed tool result cannot load tools; drop tool_references or is_error", ErrInvalidMessage, at)
	}
	for i, n := range m.ToolReferences {
		if !h.msg.client.loadable(n) {
			return fmt.Errorf("%w: messages[%d].tool_references[%d]: %.80q is not a deferred tool of this session", ErrInvalidMessage, at, i, n)
		}
		if slices.Contains(m.ToolReferences[:i], n) {
			return fmt.Errorf("%w: messages[%d].tool_references[%d]: %q is listed twice", ErrInvalidMessage, at, i, n)
		}
	}
	return nil
}

// clientHistory is what a [Client] session's history needs beyond the
// messages: which calls are client tool searches, and the definitions a
// Responses tool_search_output carries.
type clientHistory struct {
	// loadable reports whether the provider can load the named tool.
	loadable func(name string) bool
	// appendDef appends the named tool's definition as the Responses API
	// takes it in a tool_search_output.
	appendDef func(b []byte, name string) []byte
	// searches are the call IDs of unanswered client tool searches.
	searches []string
}

// newClientHistory returns the history hooks of session s in [Client]
// mode, or nil. They read s's frozen prefix and self-built tools with s.mu
// held, as every history change happens.
func newClientHistory(s *Session) *clientHistory {
	if s.cfg.searchMode() != Client {
		return nil
	}
	frozen := func(name string) *frozenTool {
		for i := range s.frozen.tools {
			if t := &s.frozen.tools[i]; t.Deferred && t.Name == name {
				return t
			}
		}
		return nil
	}
	// own returns a self-built or arrived tool's definition as the view
	// holds it; a denied or hidden one is none of the provider's to load.
	// A removed or restored one may be referenced by history read back.
	own := func(name string) *registry.Tool {
		if e, ok := s.tools.std.entries[name]; ok && e.origin != originFrozen {
			switch e.standing {
			case standingShown, standingRemoved, standingPending:
				return e.t
			}
		}
		return nil
	}
	// updated returns the approved definition of a frozen deferred tool:
	// what the session validates, and so what a tool_search_output
	// carries.
	updated := func(name string) *registry.Tool {
		if e, ok := s.tools.std.entries[name]; ok && e.origin == originFrozen && e.standing == standingShown {
			return e.t
		}
		return nil
	}
	carries := s.hist.enc.traits().searchOutputCarriesTools
	return &clientHistory{
		loadable: func(name string) bool {
			return frozen(name) != nil || (carries && own(name) != nil)
		},
		appendDef: func(b []byte, name string) []byte {
			ft := frozen(name)
			if u := updated(name); ft != nil && u != nil {
				ft = &frozenTool{Name: u.Name, Description: u.Description, Schema: jsonx.AppendCompact(nil, u.ModelSchema())}
			}
			if ft == nil {
				t := own(name)
				if t == nil {
					return b
				}
				ft = &frozenTool{Name: t.Name, Description: t.Description, Schema: jsonx.AppendCompact(nil, t.ModelSchema())}
			}
			return append(appendResponsesFunction(b, ft), '}')
		},
	}
}

// follow records the client tool searches m calls, and forgets the one m
// answers.
func (c *clientHistory) follow(m *Message) {
	switch m.Role {
	case RoleAssistant:
		c.searches = c.searches[:0]
		for _, tc := range m.ToolCalls {
			if tc.Name == registry.ToolSearchName {
				c.searches = append(c.searches, tc.ID)
			}
		}
	case RoleTool:
		if k := slices.Index(c.searches, m.CallID); k >= 0 {
			c.searches = slices.Delete(c.searches, k, k+1)
		}
	}
}

// answersSearch reports whether tool result m answers a client tool search.
func (c *clientHistory) answersSearch(m *Message) bool {
	return len(m.ToolReferences) > 0 || slices.Contains(c.searches, m.CallID)
}

package request

import (
	"fmt"
	"slices"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// This file makes a view change a message, not a new prefix (issue 44).
// Session.SetView keeps the bytes the session has sent — system, tools[]
// and the tool_search index of the prefix it froze on — and changes what
// the view admits: the plan and the searcher of the new view decide every
// call (the dispatcher enforces), a <view_changed> block at the end tells
// the model, and where the provider has a native narrowing form it is sent
// as well (viewChoice). A tool the new view shows and the prefix does not
// carry is reached the append-only way: loaded with tool_search and called
// with defer_execute. Only a prefix that cannot reach such a tool (no
// tool_search and defer_execute in its tools[], or a provider search mode)
// is rebuilt, as a declared restart of the cache.

// viewPrefix returns the frozen prefix a session uses in the view eff was
// frozen on while it keeps sending base: base's bytes, tools[], entry
// tools, index and system texts with eff's plan and searcher. ok is false
// when eff shows a tool that base can reach neither in its tools[] nor
// through tool_search and defer_execute.
func viewPrefix(base, eff *frozenPrefix) (*frozenPrefix, bool) {
	if eff == base {
		return base, true
	}
	carried := make(map[string]bool, len(base.tools))
	for _, t := range base.tools {
		carried[t.Name] = true
	}
	deferPath := base.search == Portable && base.entry[registry.DeferExecuteName] != nil && base.entry[registry.ToolSearchName] != nil
	var visible []string
	for _, name := range eff.visible {
		if eff.entry[name] != nil {
			continue // base's entry tools are added below
		}
		if !carried[name] && !deferPath {
			return nil, false
		}
		visible = append(visible, name)
	}
	for name := range base.entry {
		visible = append(visible, name)
	}
	slices.Sort(visible)
	d := &frozenPrefix{
		provider: base.provider, search: base.search,
		plan: eff.plan, searcher: eff.searcher,
		tools: base.tools, entry: base.entry, index: base.index, system: base.system,
		prefix: base.prefix, prefixElem: base.prefixElem,
		visible: slices.Compact(visible), carried: carried, base: base,
	}
	for _, t := range base.shortened {
		if eff.plan.State(t.Name) != deferral.Hidden {
			d.shortened = append(d.shortened, t)
		}
	}
	return d, true
}

// carries reports whether name's definition is in the tools[] the session
// sends: a resident tool, or a deferred one in a native mode — or, after a
// view change, any tool of the prefix the session kept sending.
func (f *frozenPrefix) carries(name string) bool {
	if f.carried != nil {
		return f.carried[name]
	}
	switch f.plan.State(name) {
	case deferral.Resident:
		return true
	case deferral.Deferred:
		return f.search.native()
	}
	return false
}

// sent returns the prefix whose bytes f sends: f itself, or the prefix a
// view change kept.
func (f *frozenPrefix) sent() *frozenPrefix {
	if f.base != nil {
		return f.base
	}
	return f
}

// viewExtra returns the tools f's plan makes resident that its tools[]
// does not carry: reached through tool_search (the session's overlay) and
// defer_execute, as arrivals are.
func viewExtra(f *frozenPrefix) []*registry.Tool {
	if f.base == nil {
		return nil
	}
	var out []*registry.Tool
	for _, t := range f.plan.Resident() {
		if !f.carried[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

// viewNoteState is a <view_changed> announcement as saved: the view it
// tells and the names that changed, rendered again on restore.
type viewNoteState struct {
	Mode     string        `json:"mode,omitempty"`
	Tier     registry.Tier `json:"tier,omitempty"`
	Elevated bool          `json:"elevated,omitempty"`
	// From is the set of callable names before the first view change not
	// yet told, kept so that a second change before the next request
	// replaces the block with one net change.
	From      []string `json:"from,omitempty"`
	Withdrawn []string `json:"withdrawn,omitempty"`
	Direct    []string `json:"direct,omitempty"`
	Deferred  []string `json:"deferred,omitempty"`
}

// applyView is SetView under s.mu: it moves the session to view v and,
// with tell, queues the <view_changed> block.
func (s *Session) applyView(v deferral.View, tell bool) error {
	eff, err := s.cfg.Cache.get(&s.cfg, v)
	if err != nil {
		return err
	}
	before := s.callable()
	base := s.frozen.sent()
	f, ok := viewPrefix(base, eff)
	if !ok {
		// The prefix cannot reach a tool the view shows: rebuilt, a
		// declared restart of the cache (docs/stability.md).
		f = eff
		s.restartPrefix()
	}
	s.view, s.frozen = v, f
	s.viewExtra = viewExtra(f)
	s.rebuildView() // withdrawing a tier or a mode withdraws what it admitted
	s.choice = viewChoice(&s.cfg, f, s.see)
	if !tell || !ok {
		return nil
	}
	s.tellView(v, before)
	return nil
}

// callable returns the names the model may call now, sorted, entry tools
// left out. s.mu must be held.
func (s *Session) callable() []string {
	var out []string
	for _, n := range s.visibleNames() {
		if s.frozen.entry[n] == nil {
			out = append(out, n)
		}
	}
	for _, t := range s.viewExtra {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tellView queues the block that tells the model the view changed,
// replacing one not yet sent: the model hears the net change since the
// last request. s.mu must be held.
func (s *Session) tellView(v deferral.View, before []string) {
	from := before
	if i := slices.IndexFunc(s.notes, func(n note) bool { return n.data.View != nil }); i >= 0 {
		from = s.notes[i].data.View.From
		s.notes = slices.Delete(s.notes, i, i+1)
	}
	after := s.callable()
	d := &viewNoteState{Mode: v.Mode.Name, Tier: v.Tier, Elevated: v.Elevated, From: from}
	for _, n := range from {
		if _, ok := slices.BinarySearch(after, n); !ok {
			d.Withdrawn = append(d.Withdrawn, n)
		}
	}
	for _, n := range after {
		if _, ok := slices.BinarySearch(from, n); ok {
			continue
		}
		if s.frozen.carries(n) {
			d.Direct = append(d.Direct, n)
		} else {
			d.Deferred = append(d.Deferred, n)
		}
	}
	if len(d.Withdrawn)+len(d.Direct)+len(d.Deferred) == 0 {
		return // nothing the model may call changed
	}
	s.notes = append(s.notes, note{text: viewNote(d), data: noteState{View: d}})
}

// viewNote renders a <view_changed> block. The mode name is the
// harness's, sanitized as announced text; the names are tool names.
func viewNote(d *viewNoteState) string {
	var b strings.Builder
	b.WriteString("<view_changed>\nThe session's tool view changed")
	if d.Mode != "" {
		b.WriteString(": mode " + announcedDescription(d.Mode))
	}
	if d.Tier != "" {
		b.WriteString(", tier " + string(d.Tier))
	}
	if d.Elevated {
		b.WriteString(", elevated")
	}
	b.WriteString(". What you may call changed.")
	line := func(label string, names []string) {
		if len(names) == 0 {
			return
		}
		b.WriteString("\n" + label + ": " + namesLine(names))
	}
	line("No longer available (calls are refused; do not call them)", d.Withdrawn)
	line("Available (call them directly)", d.Direct)
	line("Available (deferred: load the schema with tool_search, then call with defer_execute)", d.Deferred)
	b.WriteString("\n</view_changed>")
	return b.String()
}

// namesLine lists names, at most maxAnnouncedNames of them.
func namesLine(names []string) string {
	if len(names) <= maxAnnouncedNames {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:maxAnnouncedNames], ", ") + fmt.Sprintf(" and %d more", len(names)-maxAnnouncedNames)
}

// checkViewNote validates a saved <view_changed> announcement: every name
// a tool name, every list bounded by the session's tools.
func (s *Session) checkViewNote(d *viewNoteState) error {
	limit := len(s.cfg.Snapshot.Tools()) + len(s.tools.selfBuilt) + 2
	for _, l := range [][]string{d.From, d.Withdrawn, d.Direct, d.Deferred} {
		if len(l) > limit {
			return fmt.Errorf("view note: %d names, the session has %d tools", len(l), limit)
		}
		for _, n := range l {
			if !toolname.Valid(n) {
				return fmt.Errorf("view note: name %.80q is not a tool name", n)
			}
		}
		if !slices.IsSorted(l) {
			return fmt.Errorf("view note: names not sorted")
		}
	}
	switch d.Tier {
	case "", registry.TierCore, registry.TierFull:
	default:
		return fmt.Errorf("view note: tier %.40q", d.Tier)
	}
	return nil
}

// viewChoice returns the provider's native narrowing of tools[] to what
// the view lets the model call — OpenAI's allowed_tools tool choice (Chat
// Completions and Responses), Gemini's allowedFunctionNames in VALIDATED
// mode — as the members that follow the messages array, or nil when the
// view allows every tool of tools[], the provider has no such form
// (Anthropic: a change of tool_choice invalidates its message cache), or
// Config.Extra sets the member itself. see is the session's view.
func viewChoice(cfg *Config, f *frozenPrefix, see func(string) (*registry.Tool, bool, standing)) []byte {
	if f.base == nil || f.search == Client {
		return nil
	}
	var allowed []string
	for _, t := range f.tools {
		if f.entry[t.Name] != nil {
			allowed = append(allowed, t.Name)
			continue
		}
		if _, _, st := see(t.Name); st == standingShown {
			allowed = append(allowed, t.Name)
		}
	}
	if len(allowed) == len(f.tools) {
		return nil
	}
	enc, _ := encoderFor(cfg.Provider)
	n := enc.traits().narrow
	if n == nil {
		return nil
	}
	if _, ok := cfg.Extra[n.key]; ok {
		return nil // the harness sets the member itself
	}
	if n.key == "toolConfig" {
		if _, ok := cfg.Extra["tool_config"]; ok {
			return nil
		}
	}
	b := append([]byte{','}, jsonx.AppendString(nil, n.key)...)
	b = append(b, ':')
	if len(allowed) == 0 {
		return append(b, n.none...)
	}
	search := f.search.native() && slices.ContainsFunc(f.tools, func(t frozenTool) bool { return t.Deferred })
	return n.list(b, allowed, search)
}

// viewExtraShown returns the view-extra tools the view shows. s.mu must be
// held.
func (s *Session) viewExtraShown() []*registry.Tool {
	var out []*registry.Tool
	for _, t := range s.viewExtra {
		if _, _, st := s.see(t.Name); st == standingShown {
			out = append(out, t)
		}
	}
	return out
}

// tellRestoredView tells the model when the view a restore gives (the
// Config's, view) is not the one the saved session had (saved: narrower,
// or an elevation the Config does not restore), as SetView would have:
// the saved view only says what the model was last told, it decides
// nothing. s.mu need not be held: the session is not shared yet.
func (s *Session) tellRestoredView(saved viewState, view deferral.View) error {
	if equalView(saved, viewOf(view)) {
		return nil
	}
	was := deferral.View{Mode: deferral.Mode{Name: saved.Mode, Allow: saved.Allow, ReadOnly: saved.ReadOnly}, Tier: saved.Tier, Elevated: saved.Elevated}
	f, v, extra, choice, rewrites := s.frozen, s.view, s.viewExtra, s.choice, s.rewrites
	if err := s.applyView(was, false); err != nil {
		return wrapErr(ErrState, err, "saved view")
	}
	before := s.callable()
	s.frozen, s.view, s.viewExtra, s.choice, s.rewrites = f, v, extra, choice, rewrites
	s.rebuildView()
	s.tellView(view, before)
	return nil
}

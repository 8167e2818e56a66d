package request

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/openai"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/render"
	"github.com/toolshelf/toolshelf/search"
)

// indexVar is the session variable that holds the tool_search name index
// while its description renders.
const indexVar = "index"

// frozenPrefix is the part of a session fixed at creation: the exposed tools with
// their rendered descriptions, the tool_search index and searcher, and the
// encoded prefix bytes. It is immutable and shared by every session created
// from equal inputs (see [Cache]).
type frozenPrefix struct {
	provider Provider
	search   ToolSearch // Portable or a native mode, normalized
	plan     *deferral.Plan
	searcher *toolsearch.Searcher
	tools    []frozenTool
	entry    map[string]*registry.Tool
	index    string
	visible  []string
	// shortened are the exposed tools whose description was cut to the
	// provider's cap: tool_search returns their full text.
	shortened []*registry.Tool
	// overlay is tool_search's index over shortened, shared by the
	// sessions of this prefix that have no self-built tools.
	overlay toolsearch.Overlay

	system []string // the system texts, in the order sent

	prefix []byte // everything before the first history message
	// prefixElem reports whether the messages array already holds an
	// element (the Chat Completions system message).
	prefixElem bool

	// base, after a view change, is the prefix whose bytes, tools[],
	// entry tools and index the session keeps sending, and carried the
	// names in its tools[] (viewchange.go); nil otherwise.
	base    *frozenPrefix
	carried map[string]bool
}

// frozenTool is one exposed tool as the model sees it.
type frozenTool = FrozenTool

// Prefix returns the encoded prefix: the request body up to the first
// history message. It is shared; callers must not modify it.
func (f *frozenPrefix) Prefix() []byte { return f.prefix }

// System returns the session's system texts in the order they are sent:
// [Config.System], then [Config.SystemItems] sorted. It is shared; callers
// must not modify it.
func (f *frozenPrefix) System() []string { return f.system }

// Tools returns the exposed tools in tools[] order (resident tools in
// snapshot order, then tool_search and defer_execute when anything is
// deferred). In a native mode it holds the resident tools, then the
// deferred ones (Deferred set); the provider's search tool, which has no
// description or schema of ours, sits between them in the body but is not
// in the slice. The slice is shared; callers must not modify it.
func (f *frozenPrefix) Tools() []frozenTool { return f.tools }

// Index returns the tool_search name index, or "" when nothing is deferred
// or the provider searches ([Native]).
func (f *frozenPrefix) Index() string { return f.index }

// Provider returns the provider the prefix was encoded for.
func (f *frozenPrefix) Provider() Provider { return f.provider }

// Plan returns the deferral plan the prefix was built from.
func (f *frozenPrefix) Plan() *deferral.Plan { return f.plan }

// ToolSearch returns the session's tool search mode: [Portable], [Native],
// [NativeRegex] or [Client].
func (f *frozenPrefix) ToolSearch() ToolSearch { return f.search }

// checkConfig validates what every encoder needs, before anything is built.
func checkConfig(cfg *Config) error {
	if _, ok := encoderFor(cfg.Provider); !ok {
		if cfg.Provider == "" {
			return wrapErr(ErrConfig, ErrUnknownProvider, "Config.Provider is empty: want %q, %q, %q or %q", OpenAIChat, OpenAIResponses, Anthropic, Gemini)
		}
		return wrapErr(ErrConfig, ErrUnknownProvider, "%q: want %q, %q, %q or %q", cfg.Provider, OpenAIChat, OpenAIResponses, Anthropic, Gemini)
	}
	if err := checkToolSearch(cfg.ToolSearch, cfg.Provider); err != nil {
		return err
	}

	if cfg.Model == "" {
		return fmt.Errorf("%w: Config.Model is required", ErrConfig)
	}
	if err := checkDiagnostics(cfg); err != nil {
		return err
	}
	if cfg.Snapshot == nil {
		return fmt.Errorf("%w: Config.Snapshot is required", ErrConfig)
	}
	for name, s := range map[string]string{"Model": cfg.Model, "System": cfg.System} {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%w: Config.%s is not valid UTF-8", ErrConfig, name)
		}
	}
	for i, s := range cfg.SystemItems {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%w: Config.SystemItems[%d] is not valid UTF-8", ErrConfig, i)
		}
		if s == "" {
			return fmt.Errorf("%w: Config.SystemItems[%d] is empty", ErrConfig, i)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Extra)) {
		if reservedExtra(k) {
			return fmt.Errorf("%w: Config.Extra[%q]: the encoder writes this field itself", ErrConfig, k)
		}
		if !utf8.ValidString(k) || !json.Valid(cfg.Extra[k]) {
			return fmt.Errorf("%w: Config.Extra[%q] is not valid JSON", ErrConfig, k)
		}
	}
	if _, ok := cfg.SessionVars[indexVar]; ok {
		return fmt.Errorf("%w: session variable %q is reserved for the tool_search index", ErrConfig, indexVar)
	}
	vars := render.Vars{Static: cfg.StaticVars, Session: cfg.SessionVars}
	if err := vars.Check(); err != nil {
		return wrapErr(ErrConfig, err, "")
	}
	return checkProviderRules(cfg)
}

// freeze computes the plan, renders the descriptions once and encodes the
// prefix for cfg seen through view.
func freeze(cfg *Config, view deferral.View) (*frozenPrefix, error) {
	plan, err := governedPolicy(cfg).Plan(cfg.Snapshot, view)
	if err != nil {
		return nil, wrapErr(ErrConfig, err, "")
	}
	searcher, err := toolsearch.New(plan, cfg.Search)
	if err != nil {
		return nil, fmt.Errorf("%w: tool_search: %w", ErrConfig, err)
	}
	f := &frozenPrefix{provider: cfg.Provider, search: cfg.searchMode(), plan: plan, searcher: searcher, entry: map[string]*registry.Tool{}, system: systemTexts(cfg)}
	vars := render.Vars{Static: cfg.StaticVars, Session: cfg.SessionVars}
	// An OpenAI API caps descriptions: the index rides in the system text.
	caps := capsDescriptions(cfg.Provider)
	for _, t := range plan.Resident() {
		d, err := render.Description(t, vars)
		if err != nil {
			return nil, err
		}
		f.tools = append(f.tools, frozenTool{Name: t.Name, Description: d, Schema: jsonx.AppendCompact(nil, t.ModelSchema())})
	}
	if f.search.native() {
		for _, t := range plan.Deferred() {
			d, err := render.Description(t, vars)
			if err != nil {
				return nil, err
			}
			f.tools = append(f.tools, frozenTool{Name: t.Name, Description: d, Schema: jsonx.AppendCompact(nil, t.ModelSchema()), Deferred: true})
		}
	} else if f.search == Client && (len(plan.Deferred()) > 0 || cfg.SelfBuilt) {
		if err := f.clientTools(cfg, vars, caps); err != nil {
			return nil, err
		}
	} else if len(plan.Deferred()) > 0 || cfg.SelfBuilt {
		f.index = searcher.IndexText()
		st, et, err := entryTools(f.index, vars, caps, searcher.ShortNames())
		if err != nil {
			return nil, err
		}
		f.entry[st.Name], f.entry[et.Name] = st, et
		f.tools = append(f.tools,
			frozenTool{Name: st.Name, Description: st.Description, Schema: jsonx.AppendCompact(nil, st.ModelSchema())},
			frozenTool{Name: et.Name, Description: et.Description, Schema: jsonx.AppendCompact(nil, et.ModelSchema())})
	}
	if enc, ok := encoderFor(cfg.Provider); ok {
		for i := range f.tools {
			f.tools[i].Schema = enc.toolSchema(f.tools[i].Schema)
		}
	}
	for _, t := range f.tools {
		if !utf8.ValidString(t.Description) {
			return nil, fmt.Errorf("%w: tool %q: rendered description is not valid UTF-8", ErrConfig, t.Name)
		}
		f.visible = append(f.visible, t.Name)
	}
	if err := checkToolCount(cfg, f); err != nil {
		return nil, err
	}
	if err := checkToolNames(cfg, f); err != nil {
		return nil, err
	}
	if enc, _ := encoderFor(cfg.Provider); cfg.Strict && enc.traits().strictFunctions {
		for i := range f.tools {
			f.tools[i].Strict = f.entry[f.tools[i].Name] == nil && openai.StrictCompatible(f.tools[i].Schema)
		}
	}
	if caps {
		for _, name := range capDescriptions(f.tools, f.entry[registry.ToolSearchName] != nil) {
			if t, ok := cfg.Snapshot.Tool(name); ok && plan.State(name) == deferral.Resident {
				f.shortened = append(f.shortened, t)
			}
		}
	}
	if !f.search.native() && f.search != Client {
		for _, t := range plan.Deferred() {
			f.visible = append(f.visible, t.Name)
		}
	}
	slices.Sort(f.visible)
	sysIndex := ""
	if caps {
		sysIndex = f.index
	}
	f.prefix, f.prefixElem = encodePrefix(cfg, f.tools, sysIndex)
	return f, nil
}

// checkToolCount refuses a prefix whose tools[] would hold more entries
// than the provider accepts (OpenAI Chat Completions: 128). The count is
// what the body carries: f's tools, and the provider's own search tool
// when a tool is deferred in a native mode.
func checkToolCount(cfg *Config, f *frozenPrefix) error {
	enc, _ := encoderFor(cfg.Provider)
	limit := enc.traits().maxTools
	n := len(f.tools)
	if searchTool(cfg) != "" && slices.ContainsFunc(f.tools, func(t frozenTool) bool { return t.Deferred }) {
		n++
	}
	if limit == 0 || n <= limit {
		return nil
	}
	more := n - limit
	if len(f.entry) == 0 {
		// Deferring anything adds tool_search and defer_execute.
		more += 2
	}
	return wrapErr(ErrConfig, errTooManyTools, "tools[] would hold %d tools (%d resident, %d deferred) and %s accepts at most %d: defer at least %d more in Config.Policy (e.g. Defer(mcp__<server>__*)) or narrow Config.View",
		n, len(f.plan.Resident()), len(f.plan.Deferred()), cfg.Provider, limit, more)
}

// checkToolNames refuses a prefix with a function name the provider's
// own name rule refuses (Gemini: a name must start with a letter or an
// underscore), naming the tool and the fix.
func checkToolNames(cfg *Config, f *frozenPrefix) error {
	enc, _ := encoderFor(cfg.Provider)
	ok := enc.traits().nameOK
	if ok == nil {
		return nil
	}
	for _, t := range f.tools {
		if !ok(t.Name) {
			return fmt.Errorf("%w: tool %q: %s refuses this function name (it must start with a letter or an underscore): rename the tool, or defer it in Config.Policy (a deferred tool is called through defer_execute and never declared)", ErrConfig, t.Name, cfg.Provider)
		}
	}
	return nil
}

// searchMode returns the normalized tool search mode ("" is Portable).
func (cfg *Config) searchMode() ToolSearch {
	if cfg.ToolSearch == "" {
		return Portable
	}
	return cfg.ToolSearch
}

// systemTexts returns System then the sorted SystemItems, skipping an
// empty System.
func systemTexts(cfg *Config) []string {
	var out []string
	if cfg.System != "" {
		out = append(out, cfg.System)
	}
	items := slices.Clone(cfg.SystemItems)
	slices.Sort(items)
	return append(out, items...)
}

// entryTools returns tool_search, its description rendered around index,
// and defer_execute, rendered as every other tool; vars are the session's.
// With indexInSystem (a provider that caps descriptions) the description
// leaves the index out: the session carries it in the system instructions.
//
// With shortNames (the index lists tools by short names) the description
// says how such a name is called.
func entryTools(index string, vars render.Vars, indexInSystem, shortNames bool) (*registry.Tool, *registry.Tool, error) {
	session := maps.Clone(vars.Session)
	if session == nil {
		session = map[string]string{}
	}
	session[indexVar] = index
	tmpl := toolsearch.DescriptionTemplate
	if indexInSystem {
		tmpl = toolsearch.SystemIndexDescription
	}
	if shortNames {
		tmpl = toolsearch.WithShortNames(tmpl)
	}
	d, err := render.Description(&registry.Tool{Name: registry.ToolSearchName, Description: tmpl, Template: true}, render.Vars{Static: vars.Static, Session: session})
	if err != nil {
		return nil, nil, err
	}
	st := toolsearch.Definition(d)
	et := toolsearch.ExecuteDefinition()
	if et.Description, err = render.Description(&et, vars); err != nil {
		return nil, nil, err
	}
	return &st, &et, nil
}

// EntryDefinitions returns the entry tools a session with plan would send —
// tool_search with its description rendered around an empty index (saying
// how a short name is called when the index lists short names), and
// defer_execute — and the index text, which budget accounts count on a
// line of its own. Both are empty when nothing is deferred. opts are the
// search options the sessions use (nil means defaults).
func EntryDefinitions(plan *deferral.Plan, opts *search.Options) ([]*registry.Tool, string, error) {
	if len(plan.Deferred()) == 0 {
		return nil, "", nil
	}
	s, err := toolsearch.New(plan, opts)
	if err != nil {
		return nil, "", fmt.Errorf("%w: tool_search: %w", ErrConfig, err)
	}
	st, et, err := entryTools("", render.Vars{}, false, s.ShortNames())
	if err != nil {
		return nil, "", err
	}
	return []*registry.Tool{st, et}, s.IndexText(), nil
}

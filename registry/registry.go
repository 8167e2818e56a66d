package registry

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// Options configures a [Registry]. The zero value (or nil) means defaults.
type Options struct {
	// MaxSelfBuiltDescription bounds a self-built tool's description, in
	// runes; 0 means 4,096. A model writes self-built tools at run time:
	// past the bound registration fails rather than cutting the text.
	MaxSelfBuiltDescription int
	// MaxSelfBuiltSchema bounds a self-built tool's compact schema, in
	// bytes; 0 means 16,384.
	MaxSelfBuiltSchema int
	// MaxDescription bounds any tool's description, in runes; 0 means
	// 65,536: generous for real catalogs (the longest description among
	// the 293 real MCP tools in testdata is under 4,000 runes), while a
	// hostile catalog cannot put megabytes into every request.
	MaxDescription int
	// MaxSchema bounds any tool's compact input schema, in bytes; 0 means
	// 1 MiB (1,048,576).
	MaxSchema int
	// StrictImport makes [Registry.Import] and [Registry.ReplaceGroup]
	// fail, changing nothing, when any tool is bad. By default they leave
	// a bad tool out, register the rest, and report it in
	// [Registry.Rejected]: one broken tool does not take a server down.
	StrictImport bool
}

// Rejection is a tool an import left out, and why.
type Rejection struct {
	// Group is the group the tool was meant for.
	Group string
	// Name is the tool's name as its source gave it.
	Name string
	// Err says what is wrong (an invalid schema or name, a tool over its
	// bounds ...); its message names the fault.
	Err error
}

func (j Rejection) String() string { return j.Group + "/" + j.Name + ": " + j.Err.Error() }

// Registry is the mutable set of tools and groups. All methods are safe for
// concurrent use. A Registry starts with the built-in and self-built groups.
type Registry struct {
	opts Options

	mu      sync.Mutex
	version uint64
	groups  map[string]*Group
	tools   map[string]*Tool
	snap    *Snapshot // cached for version; nil when stale
	last    *Snapshot // the last snapshot built, whatever its version

	rejected map[string][]Rejection // by group, from the last imports
}

// New returns an empty registry. opts may be nil.
func New(opts *Options) *Registry {
	r := &Registry{
		groups: map[string]*Group{
			builtinGroup:   {Name: builtinGroup, Source: SourceBuiltin},
			selfBuiltGroup: {Name: selfBuiltGroup, Source: SourceSelfBuilt, DefaultDefer: DeferTrue},
		},
		tools:    map[string]*Tool{},
		rejected: map[string][]Rejection{},
	}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.MaxSelfBuiltDescription <= 0 {
		r.opts.MaxSelfBuiltDescription = registryx.MaxSelfBuiltDescription
	}
	if r.opts.MaxSelfBuiltSchema <= 0 {
		r.opts.MaxSelfBuiltSchema = registryx.MaxSelfBuiltSchema
	}
	if r.opts.MaxDescription <= 0 {
		r.opts.MaxDescription = registryx.MaxDescription
	}
	if r.opts.MaxSchema <= 0 {
		r.opts.MaxSchema = registryx.MaxSchema
	}
	return r
}

// Snapshot returns an immutable snapshot of the current contents. Snapshots
// are cached: calling it again without a change returns the same pointer.
func (r *Registry) Snapshot() *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap == nil {
		r.snap = nextSnapshot(r.last, r.version, r.groups, r.tools)
		r.last = r.snap
	}
	return r.snap
}

// Rejected returns the tools imports left out ([Registry.Import] since
// its group was created, the last [Registry.ReplaceGroup] of a server),
// ordered by group, then in source order.
func (r *Registry) Rejected() []Rejection {
	r.mu.Lock()
	defer r.mu.Unlock()
	groups := make([]string, 0, len(r.rejected))
	for g := range r.rejected {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	var out []Rejection
	for _, g := range groups {
		out = append(out, r.rejected[g]...)
	}
	return out
}

// AddGroup adds an MCP server group. A server with no tools is still a group,
// so that the model can learn it exists. The group's Source is set to
// [SourceMCP].
func (r *Registry) AddGroup(g Group) error {
	if err := checkGroupName(g.Name); err != nil {
		return err
	}
	g = g.clone()
	g.Source = SourceMCP
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.groups[g.Name]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicateGroup, g.Name)
	}
	r.groups[g.Name] = &g
	r.changed()
	return nil
}

// SetGroup replaces the settings (description, defaults, tier) of an existing
// group, or adds it as an MCP server group. Its tools stay.
func (r *Registry) SetGroup(g Group) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.groups[g.Name]
	if !ok {
		if err := checkGroupName(g.Name); err != nil {
			return err
		}
		g.Source = SourceMCP
	} else {
		g.Source = old.Source
	}
	g = g.clone()
	r.groups[g.Name] = &g
	r.restampTrust(&g)
	r.changed()
	return nil
}

// Register adds tools, all or none. A tool's Group selects its group (empty
// means built-in); an MCP server's tools are given with the server's own names
// and exposed as mcp__<server>__<tool>. A self-built tool (one the model
// wrote) is registered registry-wide as [Registry.CheckSelfBuilt] returns
// it — always deferred, its description literal text, within the
// self-built bounds ([Options]); a tool of one session goes through
// request.Session.RegisterSelfBuilt instead. A name already taken is an
// error wrapping [ErrDuplicateTool] that names both sources (for a
// self-built tool: that the name is in use).
func (r *Registry) Register(tools ...Tool) error {
	selfBuilt := false
	for i, t := range tools {
		if t.Group != selfBuiltGroup {
			continue
		}
		if !selfBuilt {
			tools, selfBuilt = slices.Clone(tools), true
		}
		ct, err := r.CheckSelfBuilt(t)
		if err != nil {
			return err
		}
		tools[i] = ct
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if selfBuilt {
		for _, t := range tools {
			if _, ok := r.tools[t.Name]; t.Group == selfBuiltGroup && (ok || t.Name == ToolSearchName || t.Name == DeferExecuteName) {
				return nameTaken(t.Name)
			}
		}
	}
	prepared, err := r.prepare(tools, selfBuilt)
	if err != nil {
		return err
	}
	for _, t := range prepared {
		r.tools[t.Name] = t
	}
	r.changed()
	return nil
}

// nameTaken is the one answer self-built registration gives for a name
// already in use, whoever holds it (registryx.NameTaken; request sessions
// give it too). It wraps [ErrDuplicateTool].
func nameTaken(name string) error { return registryx.NameTaken(ErrDuplicateTool, name) }

// CheckSelfBuilt validates a tool the model wrote against the registry's
// bounds for self-built tools ([Options]) and returns it as the registry
// keeps one — in the self-built group, deferred, its description literal
// text — without registering it: a harness checks a model-written tool
// before it keeps or offers it, and passes the result to
// [Registry.Register] to keep it for every later session (a
// request.Session checks the tools it adds to one session with it).
// Whether the name is taken is the registering side's question.
func (r *Registry) CheckSelfBuilt(t Tool) (Tool, error) {
	t.Group = selfBuiltGroup
	t.Source = SourceSelfBuilt
	t.Template = false
	t.DeferLoading = DeferTrue
	if err := checkName(t.Name); err != nil {
		return t, err
	}
	if n := utf8.RuneCountInString(t.Description); n > r.opts.MaxSelfBuiltDescription {
		return t, fmt.Errorf("%w: self-built tool %q: description is %d runes, the bound is %d", errTooLarge, t.Name, n, r.opts.MaxSelfBuiltDescription)
	}
	if !utf8.ValidString(t.Description) {
		return t, fmt.Errorf("%w: self-built tool %q: description is not valid UTF-8", errInvalidSchema, t.Name)
	}
	nt, err := t.normalize(r.opts.MaxSelfBuiltSchema, "Options.MaxSelfBuiltSchema")
	if err != nil {
		return t, err
	}
	nt.OriginalName = nt.Name
	return nt, nil
}

// prepare validates and normalizes tools against the current contents,
// all or none. r.mu must be held.
func (r *Registry) prepare(tools []Tool, selfBuilt bool) ([]*Tool, error) {
	out, _, err := r.prepareSome(tools, selfBuilt, false)
	return out, err
}

// prepareSome is prepare that, with skip set, leaves out a tool whose own
// definition is at fault and reports it as a [Rejection] instead of
// failing the batch. A tool naming a group that does not exist fails the
// batch either way. r.mu must be held.
func (r *Registry) prepareSome(tools []Tool, selfBuilt, skip bool) ([]*Tool, []Rejection, error) {
	out := make([]*Tool, 0, len(tools))
	var rejected []Rejection
	batch := map[string]*Tool{}
	for _, t := range tools {
		if t.Group == "" {
			t.Group = builtinGroup
		}
		g, ok := r.groups[t.Group]
		if !ok {
			return nil, nil, fmt.Errorf("%w: tool %q names group %q; add the group first", errUnknownGroup, t.Name, t.Group)
		}
		if g.Source == SourceSelfBuilt && !selfBuilt {
			return nil, nil, fmt.Errorf("registry: tool %q: self-built tools are registered with Register, as CheckSelfBuilt returns them", t.Name)
		}
		p, err := r.prepareOne(t, g, batch)
		if err != nil {
			if !skip {
				return nil, nil, err
			}
			name := t.OriginalName
			if name == "" {
				name = t.Name
			}
			rejected = append(rejected, Rejection{Group: g.Name, Name: name, Err: err})
			continue
		}
		batch[p.Name] = p
		out = append(out, p)
	}
	return out, rejected, nil
}

// prepareOne validates and normalizes one tool of group g. r.mu must be held.
func (r *Registry) prepareOne(t Tool, g *Group, batch map[string]*Tool) (*Tool, error) {
	t.Source = g.Source
	t.trustedHints = g.Source == SourceMCP && g.TrustAnnotations
	if g.Source == SourceMCP {
		if t.OriginalName == "" {
			t.OriginalName = t.Name
		}
		t.Name = toolname.MCPName(g.Name, t.OriginalName)
		t.Template = false
		// An alias keeps its server's prefix whole, or the tool would pass
		// for another server's: a 49-byte server A's prefix cut from
		// "mcp__A_b__t.u" reads "mcp__A__<hash>", which mcp__A__* matches.
		if !strings.HasPrefix(t.Name, toolname.MCPPrefix+g.Name+"__") {
			return nil, fmt.Errorf("%w: tool %q of MCP server %q needs an alias (its name breaks the providers' rule), and the server's name is too long to keep whole in one: shorten the server's name to %d bytes or less", errInvalidName, clipName(t.OriginalName), g.Name, toolname.MaxLen-len(toolname.MCPPrefix)-2-9)
		}
	} else if t.OriginalName == "" {
		t.OriginalName = t.Name
	}
	if err := checkName(t.Name); err != nil {
		return nil, fmt.Errorf("registry: %s: %w", describeSource(g), err)
	}
	if t.Name == ToolSearchName || t.Name == DeferExecuteName {
		return nil, fmt.Errorf("%w: %q is the library's entry tool (%s)", errReservedName, t.Name, describeSource(g))
	}
	if !utf8.ValidString(t.Description) {
		return nil, fmt.Errorf("%w: tool %q: description is not valid UTF-8", errInvalidSchema, t.Name)
	}
	if t.Tier != "" && t.Tier != TierCore && t.Tier != TierFull {
		return nil, fmt.Errorf("registry: tool %q: tier %q: want %q or %q", t.Name, t.Tier, TierCore, TierFull)
	}
	if prev, ok := r.tools[t.Name]; ok {
		return nil, dupError(t.Name, r.groups[prev.Group], g)
	}
	if prev, ok := batch[t.Name]; ok {
		return nil, dupError(t.Name, r.groups[prev.Group], g)
	}
	if n := utf8.RuneCountInString(t.Description); n > r.opts.MaxDescription {
		return nil, fmt.Errorf("%w: tool %q: description is %d runes, the bound is %d (Options.MaxDescription)", errTooLarge, t.Name, n, r.opts.MaxDescription)
	}
	nt, err := t.normalize(r.opts.MaxSchema, "Options.MaxSchema")
	if err != nil {
		return nil, err
	}
	return &nt, nil
}

// clipName cuts a name quoted in an error to 80 bytes.
func clipName(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func dupError(name string, a, b *Group) error {
	return fmt.Errorf("%w: %q is registered by the %s and again by the %s", ErrDuplicateTool, name, describeSource(a), describeSource(b))
}

func describeSource(g *Group) string {
	if g == nil {
		return "unknown group"
	}
	switch g.Source {
	case SourceMCP:
		return fmt.Sprintf("MCP server %q", g.Name)
	case SourceSelfBuilt:
		return "self-built group"
	}
	return "built-in group"
}

// Remove deletes tools by exposed name, all or none. An unknown name is an
// error that names it.
func (r *Registry) Remove(names ...string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		if _, ok := r.tools[n]; !ok {
			return fmt.Errorf("%w: %q", errUnknownTool, n)
		}
	}
	for _, n := range names {
		delete(r.tools, n)
	}
	r.changed()
	return nil
}

// RemoveGroup deletes an MCP server group and all its tools.
func (r *Registry) RemoveGroup(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.groups[name]
	if !ok {
		return fmt.Errorf("%w: %q", errUnknownGroup, name)
	}
	if g.Source != SourceMCP {
		return fmt.Errorf("%w: %q is the library's own group", errReservedName, name)
	}
	r.dropGroupTools(name)
	delete(r.groups, name)
	delete(r.rejected, name)
	r.changed()
	return nil
}

// ReplaceGroup atomically sets an MCP server group and replaces all of its
// tools with tools (given with the server's own names): what a reconnect or
// a tools/list_changed notification does. On error nothing changes.
func (r *Registry) ReplaceGroup(g Group, tools []Tool) error {
	if err := checkGroupName(g.Name); err != nil {
		return err
	}
	g = g.clone()
	g.Source = SourceMCP
	r.mu.Lock()
	defer r.mu.Unlock()
	oldGroup, hadGroup := r.groups[g.Name]
	oldTools := map[string]*Tool{}
	for n, t := range r.tools {
		if t.Group == g.Name {
			oldTools[n] = t
		}
	}
	r.dropGroupTools(g.Name)
	r.groups[g.Name] = &g
	tools = slices.Clone(tools)
	for i := range tools {
		tools[i].Group = g.Name
	}
	prepared, rejected, err := r.prepareSome(tools, false, !r.opts.StrictImport)
	if err != nil {
		if hadGroup {
			r.groups[g.Name] = oldGroup
		} else {
			delete(r.groups, g.Name)
		}
		for n, t := range oldTools {
			r.tools[n] = t
		}
		return err
	}
	for _, t := range prepared {
		r.tools[t.Name] = t
	}
	r.setRejected(g.Name, rejected)
	r.changed()
	return nil
}

// setRejected records a group's rejections. r.mu must be held.
func (r *Registry) setRejected(group string, rs []Rejection) {
	if len(rs) == 0 {
		delete(r.rejected, group)
		return
	}
	r.rejected[group] = rs
}

func (r *Registry) dropGroupTools(group string) {
	for n, t := range r.tools {
		if t.Group == group {
			delete(r.tools, n)
		}
	}
}

// changed records a change. r.mu must be held.
func (r *Registry) changed() {
	r.version++
	r.snap = nil
}

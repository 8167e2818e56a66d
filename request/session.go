package request

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/toolshelf/toolshelf/internal/engine/shortname"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"slices"
	"strings"
	"sync"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// Session is one conversation: a frozen prefix shared with every session
// of equal inputs, plus what is its own — the loaded set, self-built tools,
// elevation and the encoded history. Its methods are safe for concurrent use.
type Session struct {
	cfg Config
	// deny is the rules' answer on a tool, resolved once (governance.go);
	// obs is the harness's Observer (the dispatcher's), taken once, for
	// the events the session raises itself: tool changes, unmatched rules.
	deny func(*registry.Tool) (string, bool)
	obs  execute.Observer

	mu sync.Mutex
	// view is the session's deferral view (mode, tier, elevation): what
	// the frozen plan was computed for. The session's own tools and the
	// loaded set are in tools.
	view   deferral.View
	frozen *frozenPrefix
	tools  toolState // toolstate.go
	notes  []note    // announcements not yet sent
	hist   history

	// synced is the registry snapshot last adopted by Sync; what it
	// adopted is tools.live.
	synced *registry.Snapshot
	// syncedGen is stateGen when synced was compared (0: not yet);
	// viewGen counts rebuildView's runs (see syncNoop).
	syncedGen, viewGen uint64

	ruleWarnings []RuleWarning // see rulewarn.go
	// turnPass merges what Sync and approvals changed since the notes were
	// last placed: announced as one set of blocks per turn (live_turn.go).
	turnPass *syncPass
	// liveSent holds the Sync announcements placed so far (LiveTools).
	liveSent []string
	// log is the change log (changelog.go).
	log changeLog

	// viewExtra are the tools a view change made resident that tools[]
	// does not carry, choice the native narrowing sent after the messages
	// (viewchange.go).
	viewExtra []*registry.Tool
	choice    []byte
	// edited is the send check's refusal of a restored body that does not
	// extend what was sent; rewrites counts declared rewrites
	// (sendcheck.go).
	edited   error
	rewrites int
}

// dispatchSession is the session as the dispatcher sees it: it adds the
// methods only [execute.Session] needs (ID, Loaded, MarkLoaded,
// VisibleNames) so that they stay off Session's API; Lookup is Session's
// own, and a harness lists the loaded tools with [Session.LoadedNames].
type dispatchSession struct{ *Session }

var _ execute.Session = dispatchSession{}

// ID returns Config.ID.
func (d dispatchSession) ID() string { return d.cfg.ID }

// MarkLoaded records that the model has seen name's schema.
func (d dispatchSession) MarkLoaded(name string) { d.tools.markLoaded(name) }

// VisibleNames returns every name the session can see, sorted.
func (d dispatchSession) VisibleNames() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.visibleNames() // the frozen names are shared: read-only
}

// Loaded reports whether a deferred tool's schema was loaded.
func (d dispatchSession) Loaded(name string) bool { return d.tools.isLoaded(name) }

// NewSession validates cfg, computes the plan, renders the descriptions once
// and freezes the prefix — or, when cfg.Cache already holds a prefix for
// equal inputs, shares it.
func NewSession(cfg Config) (*Session, error) {
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	if cfg.Cache == nil {
		cfg.Cache = &Cache{}
	}
	f, err := cfg.Cache.get(&cfg, cfg.View)
	if err != nil {
		return nil, err
	}
	enc, _ := encoderFor(cfg.Provider) // checkConfig accepted the provider
	s := &Session{
		cfg:    cfg,
		tools:  newToolState(),
		view:   cfg.View,
		frozen: f,
		hist:   history{provider: cfg.Provider, enc: enc, userNative: cfg.NativeToolChanges && enc.traits().changes != nil},
	}
	s.deny = denial(&s.cfg)
	if cfg.Dispatcher != nil {
		s.obs = cfg.Dispatcher.Options().Observer
	}
	s.ruleWarnings = unmatchedRules(&s.cfg, s.obs)
	s.hist.msg.client = newClientHistory(s)
	if cfg.DropMessages {
		s.dropMessages()
	}
	return s, nil
}

// Plan returns the deferral plan the session's prefix is built on: which
// tools are resident, deferred or hidden, and why ([deferral.Plan.Explain]).
// It changes only with [Session.SetView]; its View is the session's current
// view.
func (s *Session) Plan() *deferral.Plan { return s.current().plan }

// current returns the session's frozen prefix and tools.
func (s *Session) current() *frozenPrefix {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frozen
}

// Prefix returns the encoded prefix (system and tools), shared and
// read-only. It is byte-identical on every turn, view changes included;
// only a [Session.SetView] whose prefix cannot reach a tool the new view
// shows rebuilds it (a declared restart of the cache).
func (s *Session) Prefix() []byte { return s.current().prefix }

// View returns the session's current view: its mode, tier and elevation.
func (s *Session) View() deferral.View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}

// SetView switches the session's mode, tier or elevation (set the View's
// Elevated to grant the full tier). It is a message, not a new prefix:
// system and tools[] stay byte-identical, the next request tells the model
// at the end what it may call now (a <view_changed> block), the
// dispatcher enforces the new view, and OpenAI's allowed_tools or
// Gemini's allowedFunctionNames narrow tools[] natively. A tool the view
// shows that tools[] does not carry is loaded with tool_search and called
// with defer_execute. Only a prefix without tool_search and defer_execute
// (nothing deferred, no [Config.SelfBuilt]) or in a provider search mode
// is rebuilt when the view shows such a tool: a declared restart of the
// cache (docs/stability.md). History, loaded tools and self-built tools
// stay.
func (s *Session) SetView(v deferral.View) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.frozen
	if err := s.applyView(v, true); err != nil {
		return err
	}
	s.logView(old, v)
	return nil
}

// Lookup returns a tool the session can see: resident, deferred, an entry
// tool, or self-built in this session. Hidden and unknown names both
// report ok == false.
func (s *Session) Lookup(name string) (t *registry.Tool, deferred bool, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, deferred, st := s.see(name)
	if st != standingShown {
		return nil, false, false
	}
	return t, deferred, true
}

// LoadedNames returns the deferred tools whose schemas were loaded (by
// tool_search, or by an answer in [Client] mode), self-built ones
// included, sorted.
func (s *Session) LoadedNames() []string { return s.tools.loadedNames() }

// Call runs one tool call of the model: tool_search goes to the shared
// searcher with this session's scope, everything else to the dispatcher.
// Failures are model-facing results; Call never ends the session.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) registry.Result {
	s.mu.Lock()
	f := s.frozen
	var scope toolsearch.Scope
	if name == registry.ToolSearchName && f.entry[name] != nil {
		scope = s.searchScope(f)
	}
	s.mu.Unlock()
	if name == registry.ToolSearchName && f.entry[name] != nil {
		return s.search(ctx, f, scope, args)
	}
	if f.search.native() && (name == registry.DeferExecuteName || name == registry.ToolSearchName) {
		// The provider searches; the portable entry tools are not in
		// tools[], and a made-up call of one must not become a way around
		// the provider's loading.
		return registry.Result{
			Text:    fmt.Sprintf("%s is not available in this session. Find tools with the provider's tool search, then call each tool by its own name.", name),
			IsError: true,
		}
	}
	if s.cfg.Dispatcher == nil {
		return registry.Result{
			Text:    fmt.Sprintf("tool %q cannot run: this session has no tool dispatcher configured. Answer without calling tools.", name),
			IsError: true,
		}
	}
	return s.cfg.Dispatcher.Call(ctx, dispatchSession{s}, name, args)
}

// RegisterSelfBuilt adds a tool the model wrote to this session only. It is
// validated against the self-built bounds ([Config.Limits]), always
// deferred, searchable by tool_search, and announced to the model by a
// block at the front of the next user message (or after the next tool
// results): append-only, so the prefix and the index do not change.
//
// In a native tool search mode it reports an error wrapping [ErrConfig]:
// the provider searches only tools[], which is frozen for the session.
func (s *Session) RegisterSelfBuilt(t registry.Tool) error {
	nt, err := registry.New(s.cfg.Limits).CheckSelfBuilt(t)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.frozen.search; m.native() {
		return fmt.Errorf("%w: self-built tool %q: tool search %q cannot find tools added after the session started; use Portable tool search for self-built tools", ErrConfig, nt.Name, m)
	}
	if s.frozen.search == Client && s.frozen.entry[registry.DeferExecuteName] == nil {
		return fmt.Errorf("%w: self-built tool %q: in tool search %q a self-built tool, which is not in the frozen tools[], is called through defer_execute, and this session has none; create sessions that take self-built tools with Config.SelfBuilt", ErrConfig, nt.Name, Client)
	}
	switch s.decide(&nt, originSelfBuilt, s.tierSnapshot()) {
	case standingHidden:
		return fmt.Errorf("%w: self-built tool %q is outside the session's mode %q, which would hide it", ErrConfig, nt.Name, s.view.Mode.Name)
	case standingDenied:
		rule, _ := s.deniedBy(&nt)
		return fmt.Errorf("%w: self-built tool %q: every call of it is denied by %s", ErrConfig, nt.Name, rule)
	}
	if s.frozen.entry[registry.ToolSearchName] == nil {
		return fmt.Errorf("%w: self-built tool %q: this session's tools[] has no tool_search and defer_execute (nothing was deferred when it started), so the model could never load or call it; create sessions that take self-built tools with Config.SelfBuilt", ErrConfig, nt.Name)
	}
	if err := s.addOwn(&nt, originSelfBuilt); err != nil {
		return err
	}
	s.rebuildView()
	s.notes = append(s.notes, note{text: announce(&nt), data: noteState{SelfBuilt: nt.Name}})
	return nil
}

// addOwn adds a tool of the session's own, of kind o (originSelfBuilt or
// originArrived), after checking its name is free.
func (s *Session) addOwn(t *registry.Tool, o origin) error {
	// One answer whoever holds the name, hidden or not (registryx.NameTaken).
	if _, ok := s.cfg.Snapshot.Tool(t.Name); ok || t.Name == registry.ToolSearchName || t.Name == registry.DeferExecuteName {
		return registryx.NameTaken(registry.ErrDuplicateTool, t.Name)
	}
	if _, ok := s.tools.ownTool(t.Name); ok {
		return registryx.NameTaken(registry.ErrDuplicateTool, t.Name)
	}
	if o == originArrived {
		s.tools.arrived = append(s.tools.arrived, t)
		return nil
	}
	if server, ok := s.serverOf(t.Name); ok {
		return fmt.Errorf("%w: self-built tool %q: the name is in MCP server %q's namespace (mcp__%s__…), which a self-built tool cannot take; choose a name without the mcp__ prefix", ErrConfig, t.Name, server, server)
	}
	s.tools.selfBuilt = append(s.tools.selfBuilt, t)
	return nil
}

// announce is the block that tells the model about a new self-built tool.
// The description was written by the model: only its first line is kept,
// bounded to maxAnnouncedDescription runes, with control characters made
// spaces and every wrapper tag neutralized, so that it cannot close the
// block or open another one.
func announce(t *registry.Tool) string {
	return "<new_deferred_tool>\n" + t.Name + announcedOrigin(t) + ": " + announcedDescription(t.Description) + "\nLoad its schema with tool_search, then call it with defer_execute.\n</new_deferred_tool>"
}

// BuildRequest adds turn to the conversation and returns the provider's
// request body: the frozen prefix, the history, and the turn's messages.
// The turn's messages join the history; earlier messages are never
// re-encoded. On error nothing changes. To retry a request that failed in
// transit, resend the returned body: calling BuildRequest again with the
// same turn would add its messages a second time.
//
// A turn that opens with the user's text right after tool results is
// refused ([ErrInvalidMessage]): the model's reply to those results — its
// answer, when it made no calls — is missing, the sign of a loop that
// returned on the answer without keeping it. Every provider would take
// the body (Anthropic and Gemini merge the text into the results'
// message), so it is an error rather than a warning nobody reads; a user
// message in the results' own turn (the user spoke while the tools ran)
// is accepted.
//
// With [Config.Preload] the build may search the catalog and run the
// dispatcher's guard on tool_search (its rules, hooks and events) under
// context.Background(): a harness whose ranker or hooks block (an HTTP
// embedder) builds with [Session.AppendRequestContext] instead.
func (s *Session) BuildRequest(turn Turn) ([]byte, error) {
	return s.build(context.Background(), nil, turn, true)
}

// AppendRequest is [Session.BuildRequest] appending to dst: with a buffer
// of enough capacity a steady turn does not allocate.
func (s *Session) AppendRequest(dst []byte, turn Turn) ([]byte, error) {
	return s.build(context.Background(), dst, turn, false)
}

// AppendRequestContext is [Session.AppendRequest] under ctx, the caller's:
// a preload ([Config.Preload]) searches with it — the ranker, the
// dispatcher's hooks and observer receive it — and a preload whose search
// ctx ends attaches nothing, while the request is built as without it.
func (s *Session) AppendRequestContext(ctx context.Context, dst []byte, turn Turn) ([]byte, error) {
	return s.build(ctx, dst, turn, false)
}

func (s *Session) build(ctx context.Context, dst []byte, turn Turn, alloc bool) ([]byte, error) {
	block, preloaded := s.preload(ctx, turn)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.edited != nil {
		return dst, s.edited
	}
	if block != "" {
		turn.Inject = append(slices.Clip(turn.Inject), block)
	}
	_, nativeNames := s.nativeParts()
	msgs, consumed, err := s.place(turn)
	if err != nil {
		return dst, err
	}
	if err := s.hist.checkTurnStart(msgs); err != nil {
		return dst, err
	}
	if err := s.hist.check(msgs); err != nil {
		return dst, err
	}
	if s.hist.count()+len(msgs) == 0 {
		return dst, fmt.Errorf("%w: the conversation has no messages yet; add a user message", errSequence)
	}
	s.hist.add(msgs)
	s.tools.markLoaded(preloaded...)
	if consumed {
		// Tools added natively are loaded: their definitions were sent.
		s.tools.markLoaded(nativeNames...)
		s.countSent()
		s.notes, s.turnPass = nil, nil
	}
	s.sent(msgs)
	if alloc {
		dst = make([]byte, 0, s.outputLen())
	}
	return s.appendOutput(dst), nil
}

// place puts the turn's injection blocks and pending announcements at the
// front of the last user message, or in a block-only user message after
// trailing tool results. It reports whether the announcements were placed.
func (s *Session) place(turn Turn) ([]Message, bool, error) {
	msgs := turn.Messages
	if len(turn.Inject) == 0 && len(s.notes) == 0 {
		return msgs, false, nil
	}
	for i, b := range turn.Inject {
		if blank(b) {
			return nil, false, fmt.Errorf("%w: Turn.Inject[%d] is empty or whitespace only", ErrInvalidMessage, i)
		}
	}
	blocks := make([]string, 0, len(turn.Inject)+len(s.notes))
	blocks = append(blocks, turn.Inject...)
	for _, n := range s.notes {
		blocks = append(blocks, n.text)
	}
	native, _ := s.nativeParts()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser {
			msgs = slices.Clone(msgs)
			msgs[i].Blocks = append(blocks, msgs[i].Blocks...)
			if len(native) > 0 {
				msgs[i].Native = append(slices.Clip(msgs[i].Native), native...)
			}
			return msgs, true, nil
		}
	}
	if n := len(msgs); n > 0 && msgs[n-1].Role == RoleTool {
		msgs = append(slices.Clip(msgs), Message{Role: RoleUser, Blocks: blocks, Native: native})
		return msgs, true, nil
	}
	if len(turn.Inject) > 0 {
		return nil, false, fmt.Errorf("%w: Turn.Inject needs a user message or a tool result in the turn to attach to", errSequence)
	}
	return msgs, false, nil // announcements wait for the next turn
}

func (s *Session) outputLen() int {
	return len(s.frozen.prefix) + 1 + len(s.hist.buf) + len(ephemeral) + 2 + len(s.choice) + diagnosticsLen(s.log.prevReply)
}

func (s *Session) appendOutput(dst []byte) []byte {
	f := s.frozen
	dst = append(dst, f.prefix...)
	if h := s.hist.buf; len(h) > 0 {
		if f.prefixElem {
			dst = append(dst, ',')
		}
		dst = s.hist.enc.appendHistory(dst, h)
	}
	if len(s.choice) == 0 && !s.cfg.Diagnostics {
		return append(dst, "]}"...)
	}
	dst = append(dst, ']')
	dst = append(dst, s.choice...)
	if s.cfg.Diagnostics {
		dst = appendDiagnostics(dst, s.hist.enc.traits(), s.log.prevReply)
	}
	return append(dst, '}')
}

// Messages returns the conversation so far in neutral form, with the
// blocks each user message was sent with. With [Config.DropMessages] it
// returns nil.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Stored messages left undecoded were signed with the harness's key
	// (unsigned ones are decoded at open): decoding them cannot fail but
	// for the key holder's bug, and then the messages decoded so far are
	// what there is.
	msgs, _ := s.hist.all()
	return slices.Clone(msgs)
}

// dropMessages releases the neutral form of the conversation that the
// session keeps for [Session.Messages], and stops keeping it for later
// turns ([Config.DropMessages]).
func (s *Session) dropMessages() {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := &s.hist
	h.nDropped, h.dropped = h.count(), true
	h.entries, h.stored, h.nStored = nil, nil, 0
}

// serverOf reports whether name is inside the namespace of an MCP server
// the session knows: a group of its snapshot (frozen or last synced) or a
// configured pending server. s.mu must be held.
func (s *Session) serverOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, toolname.MCPPrefix)
	if !ok {
		return "", false
	}
	server, _, ok := strings.Cut(rest, "__")
	if !ok {
		return "", false
	}
	for _, snap := range []*registry.Snapshot{s.cfg.Snapshot, s.synced} {
		if snap == nil {
			continue
		}
		if _, ok := snap.Group(server); ok {
			return server, true
		}
	}
	return server, slices.Contains(s.cfg.Pending, server)
}

// BoundName returns the full name of the tool the frozen index announced
// under short: the one visible MCP tool of the frozen plan whose short name
// it is. A short name stays bound to it after it left, so that a call
// answers "removed" and never runs another server's tool of that name.
func (d dispatchSession) BoundName(short string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if short == "" || strings.HasPrefix(short, toolname.MCPPrefix) {
		return "", false
	}
	if _, ok := d.cfg.Snapshot.Tool(short); ok {
		return "", false // a full name of its own
	}
	full, n := "", 0
	for _, name := range d.frozen.visible {
		if !strings.HasSuffix(name, "__"+short) {
			continue
		}
		if t, ok := d.cfg.Snapshot.Tool(name); ok {
			if sn, ok := shortname.Of(t); ok && sn == short {
				full, n = name, n+1
			}
		}
	}
	return full, n == 1
}

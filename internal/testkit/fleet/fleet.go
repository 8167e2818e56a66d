// Package fleet serves one scripted conversation from a request.Store
// through several replicas — each with its own registry, imported in its
// own order, and its own request.Cache — next to a single in-process
// reference session, so that a test can compare every body byte for byte.
// request's own tests and integration/redisstore's use it; a Store author
// checks the Store's contract with request/storetest.TestStore.
//
// The script's turns cover tool_search (exact and fuzzy), defer_execute,
// direct calls, two results in one turn, injected blocks, a self-built
// tool (registered, searched, called), a tools-changed announcement and an
// elevation. [New] with [Options] builds a fleet; [Fleet], [Replica] and
// [Pending] drive it turn by turn, and [Handlers], [Step], [TurnKey] and
// [SelfBuiltName] let a test build its own replica of the script.
package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// Options configures a [Fleet].
type Options struct {
	// Catalogs are the tools every replica imports, each replica in its
	// own shuffled order. Some tools must be deferred by Policy.
	Catalogs []*registry.Catalog
	// Policy decides which tools are deferred.
	Policy *deferral.Policy
	// Provider is the provider the conversation is encoded for.
	Provider request.Provider
	// Replicas is the number of replicas; 0 means 3.
	Replicas int
	// CompactBytes is passed to every [request.OpenConversation].
	CompactBytes int
}

// Fleet is several replicas serving one conversation from one store,
// and the reference: the same conversation in one in-process session.
type Fleet struct {
	store    request.Store
	id       string
	opts     Options
	replicas []*Replica
	ref      *request.Session
	want     [][]byte // the reference's bodies, by turn
}

// Replica is one process's view of the fleet: its own registry, cache and
// dispatcher.
type Replica struct {
	fleet *Fleet
	cfg   request.Config
}

// SelfBuiltName is the self-built tool the script registers.
const SelfBuiltName = "count_lines"

// Script turns at which something special happens.
const (
	turnSelfBuilt    = 20 // the self-built tool is registered
	turnSearchSelf   = 25 // tool_search loads it
	turnCallSelf     = 26 // defer_execute runs it
	turnToolsChanged = 33 // a server's tools changed
	turnElevate      = 40 // the session is elevated
)

// New returns a fleet serving conversation id from store.
func New(store request.Store, id string, opts Options) (*Fleet, error) {
	if opts.Replicas <= 0 {
		opts.Replicas = 3
	}
	f := &Fleet{store: store, id: id, opts: opts}
	for i := range opts.Replicas {
		cfg, err := f.config(uint64(i + 1))
		if err != nil {
			return nil, err
		}
		f.replicas = append(f.replicas, &Replica{fleet: f, cfg: cfg})
	}
	cfg, err := f.config(0)
	if err != nil {
		return nil, err
	}
	if f.ref, err = request.NewSession(cfg); err != nil {
		return nil, err
	}
	return f, nil
}

// without returns a snapshot of a registry holding snap's tools but name,
// as the harness's registry would after name's server dropped it.
func without(snap *registry.Snapshot, name string) (*registry.Snapshot, error) {
	reg := registry.New(nil)
	byGroup := map[string][]registry.Tool{}
	var plain []registry.Tool
	for t := range snap.All() {
		if t.Name == name {
			continue
		}
		if g, ok := snap.Group(t.Group); ok && g.Source == registry.SourceMCP {
			byGroup[t.Group] = append(byGroup[t.Group], *t)
		} else {
			plain = append(plain, *t)
		}
	}
	if err := reg.Register(plain...); err != nil {
		return nil, err
	}
	for _, g := range snap.Groups() {
		if g.Source == registry.SourceMCP {
			if err := reg.ReplaceGroup(*g, byGroup[g.Name]); err != nil {
				return nil, err
			}
		}
	}
	return reg.Snapshot(), nil
}

// Replica returns replica i (0-based).
func (f *Fleet) Replica(i int) *Replica { return f.replicas[i] }

// Reference returns the reference session.
func (f *Fleet) Reference() *request.Session { return f.ref }

// config builds one process's session configuration: a registry of the
// catalogs imported in an order shuffled by seed (0: file order), a fresh
// cache and dispatcher.
func (f *Fleet) config(seed uint64) (request.Config, error) {
	cats := slices.Clone(f.opts.Catalogs)
	var r *rand.Rand
	if seed != 0 {
		r = rand.New(rand.NewPCG(seed, seed))
		r.Shuffle(len(cats), func(i, j int) { cats[i], cats[j] = cats[j], cats[i] })
	}
	reg := registry.New(nil)
	for _, c := range cats {
		cc := *c
		cc.Tools = slices.Clone(c.Tools)
		for i := range cc.Tools {
			cc.Tools[i].Handler = echo(cc.Tools[i].Name)
		}
		if r != nil {
			r.Shuffle(len(cc.Tools), func(i, j int) { cc.Tools[i], cc.Tools[j] = cc.Tools[j], cc.Tools[i] })
		}
		if err := reg.Import(&cc); err != nil && !errors.Is(err, registry.ErrRejected) { // measured without the tools left out, as before
			return request.Config{}, err
		}
	}
	disp, err := execute.New(nil)
	if err != nil {
		return request.Config{}, err
	}
	extra := map[string]json.RawMessage{"max_tokens": json.RawMessage(`1024`)}
	switch f.opts.Provider {
	case request.OpenAIResponses:
		extra = map[string]json.RawMessage{"max_output_tokens": json.RawMessage(`1024`)}
	case request.Gemini:
		extra = map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"maxOutputTokens":1024}`)}
	}
	return request.Config{
		ID:         f.id,
		Snapshot:   reg.Snapshot(),
		Policy:     f.opts.Policy,
		Provider:   f.opts.Provider,
		Model:      "test-model",
		System:     "You are a coding agent. Use tools when they help.",
		Extra:      extra,
		Cache:      &request.Cache{},
		Dispatcher: disp,
		SelfBuilt:  true,
		// The script elevates the session at turnElevate: the harness
		// lets that grant survive the next replica's restore.
		RestoreElevation: true,
	}, nil
}

// echo is every catalog tool's handler: it answers with its name and
// parameters.
func echo(name string) registry.Handler {
	return func(_ context.Context, params json.RawMessage) (registry.Result, error) {
		return registry.Result{Text: name + " ran with " + string(params)}, nil
	}
}

// countLines is the self-built tool's handler.
func countLines(_ context.Context, params json.RawMessage) (registry.Result, error) {
	var p struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return registry.Result{}, err
	}
	return registry.Result{Text: fmt.Sprintf("%d lines", strings.Count(p.Text, "\n")+1)}, nil
}

// Handlers are the self-built tools' handlers, for
// [request.ConversationOptions.Handlers].
func Handlers() map[string]registry.Handler {
	return map[string]registry.Handler{SelfBuiltName: countLines}
}

// TurnKey is the key turn k is committed under.
func TurnKey(k int) string { return fmt.Sprintf("turn-%d", k) }

// Want returns the reference body of turn k (0-based). Turns must be
// asked for in order, each once or again.
func (f *Fleet) Want(ctx context.Context, k int) ([]byte, error) {
	for len(f.want) <= k {
		turn, err := Step(ctx, f.ref, len(f.want))
		if err != nil {
			return nil, err
		}
		body, err := f.ref.BuildRequest(turn)
		if err != nil {
			return nil, fmt.Errorf("reference turn %d: %w", len(f.want), err)
		}
		f.want = append(f.want, body)
	}
	return f.want[k], nil
}

// Pending is a turn built on a replica and not yet committed.
type Pending struct {
	// Conversation is the opened conversation.
	Conversation *request.Conversation
	// Body is the turn's request body.
	Body []byte
	// Done reports that the store already held the turn (committed by
	// another replica): Body is then rebuilt from the stored state and
	// there is nothing to commit.
	Done bool
	key  string
}

// Build opens the conversation on replica r and builds turn k: it runs the
// previous reply's tool calls on the session, then builds the request.
// If the store already holds turn k, the result is Done.
func (r *Replica) Build(ctx context.Context, k int) (*Pending, error) {
	f := r.fleet
	conv, err := request.OpenConversation(ctx, f.store, f.id, r.cfg, &request.ConversationOptions{
		Handlers: Handlers(), CompactBytes: f.opts.CompactBytes,
	})
	if err != nil {
		return nil, err
	}
	p := &Pending{Conversation: conv, key: TurnKey(k)}
	s := conv.Session()
	if conv.LastTurn() == p.key {
		p.Done = true
		p.Body, err = s.BuildRequest(request.Turn{})
		return p, err
	}
	if conv.Version() != int64(k) {
		return nil, fmt.Errorf("fleet: turn %d on a conversation at version %d (last turn %q): a turn was lost or duplicated", k, conv.Version(), conv.LastTurn())
	}
	turn, err := Step(ctx, s, k)
	if err != nil {
		return nil, err
	}
	if p.Body, err = s.BuildRequest(turn); err != nil {
		return nil, fmt.Errorf("turn %d: %w", k, err)
	}
	return p, nil
}

// Commit commits the built turn; a Done turn has nothing to commit.
func (p *Pending) Commit(ctx context.Context) error {
	if p.Done {
		return nil
	}
	return p.Conversation.Commit(ctx, p.key)
}

// Serve builds and commits turn k on replica r, building again on the
// newer state after a conflict, and returns the body.
func (r *Replica) Serve(ctx context.Context, k int) ([]byte, error) {
	for range 3 {
		p, err := r.Build(ctx, k)
		if err != nil {
			return nil, err
		}
		err = p.Commit(ctx)
		if errors.Is(err, request.ErrConflict) {
			continue
		}
		return p.Body, err
	}
	return nil, fmt.Errorf("fleet: turn %d: three conflicts in a row", k)
}

// Step applies turn k's side effects to s — the previous reply's tool
// calls, registrations, announcements — and returns the turn.
func Step(ctx context.Context, s *request.Session, k int) (request.Turn, error) {
	if k == 0 {
		return request.Turn{
			Messages: []request.Message{{Role: request.RoleUser, Text: "Find the flaky tests & fix them <carefully>."}},
			Inject:   []string{"<system-reminder>The working tree is clean.</system-reminder>"},
		}, nil
	}
	plan := s.Plan()
	var deferred, resident []string
	for _, t := range plan.Deferred() {
		deferred = append(deferred, t.Name)
	}
	for _, t := range plan.Resident() {
		resident = append(resident, t.Name)
	}
	if len(deferred) == 0 || len(resident) == 0 {
		return request.Turn{}, errors.New("fleet: the policy must defer some tools and keep some resident")
	}
	j := k / 6
	d, res := deferred[j%len(deferred)], resident[j%len(resident)]
	switch k {
	case turnSelfBuilt:
		err := s.RegisterSelfBuilt(registry.Tool{
			Name: SelfBuiltName, Description: "Count the lines of a text.\nWritten by the model.",
			RawSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			Handler:   countLines,
		})
		if err != nil {
			return request.Turn{}, err
		}
	case turnToolsChanged:
		// The first deferred tool of an MCP server leaves its server: the
		// session adopts the registry without it (Sync), which announces
		// the removal and carries it in the stored state.
		for _, name := range deferred {
			if !strings.HasPrefix(name, toolname.MCPPrefix) {
				continue
			}
			snap, err := without(plan.Snapshot(), name)
			if err != nil {
				return request.Turn{}, err
			}
			if _, err := s.Sync(ctx, snap); err != nil {
				return request.Turn{}, err
			}
			break
		}
	case turnElevate:
		v := s.View()
		v.Elevated = true
		if err := s.SetView(v); err != nil {
			return request.Turn{}, err
		}
	}
	type c struct{ name, args string }
	var calls []c
	switch {
	case k == turnSearchSelf:
		calls = []c{{registry.ToolSearchName, `{"tool_names":["` + SelfBuiltName + `"]}`}}
	case k == turnCallSelf:
		calls = []c{{registry.DeferExecuteName, `{"tool_name":"` + SelfBuiltName + `","params":{"text":"a\nb\nc"}}`}}
	case k%6 == 1:
		calls = []c{{registry.ToolSearchName, `{"tool_names":["` + d + `"]}`}}
	case k%6 == 2:
		calls = []c{{registry.DeferExecuteName, `{"tool_name":"` + d + `","params":{}}`}}
	case k%6 == 3:
		calls = []c{{res, `{}`}, {registry.DeferExecuteName, `{"tool_name":"` + d + `","params":{}}`}}
	case k%6 == 4:
		q := strings.ReplaceAll(d[strings.LastIndex(d, "__")+2:], "_", " ")
		calls = []c{{registry.ToolSearchName, `{"queries":["` + q + `"]}`}}
	}
	if len(calls) == 0 {
		return request.Turn{Messages: []request.Message{
			{Role: request.RoleAssistant, Text: fmt.Sprintf("Step %d is done.", k)},
			{Role: request.RoleUser, Text: fmt.Sprintf("Go on with step %d.", k+1)},
		}}, nil
	}
	reply := request.Message{Role: request.RoleAssistant, Text: fmt.Sprintf("Step %d needs tools.", k)}
	for i, cl := range calls {
		reply.ToolCalls = append(reply.ToolCalls, request.ToolCall{ID: fmt.Sprintf("call_%d_%d", k, i), Name: cl.name, Arguments: json.RawMessage(cl.args)})
	}
	msgs := []request.Message{reply}
	for _, tc := range reply.ToolCalls {
		r := s.Call(ctx, tc.Name, tc.Arguments)
		msgs = append(msgs, request.Message{Role: request.RoleTool, CallID: tc.ID, Text: r.Text, IsError: r.IsError})
	}
	return request.Turn{Messages: msgs}, nil
}

// Config returns the replica's session configuration.
func (r *Replica) Config() request.Config { return r.cfg }

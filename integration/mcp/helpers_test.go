package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"slices"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// fakeServer is a real go-sdk MCP server reached over in-memory transports.
// Each connection attempt gets a fresh pair; drop closes the server side of
// every live connection, as a crashed server would.
type fakeServer struct {
	t *testing.T

	mu       sync.Mutex
	server   *sdk.Server
	sessions []*sdk.ServerSession
	conns    []sdk.Connection // the server side of each live connection
}

// recording is a server transport that keeps the connection it makes, so
// that drop can cut it as a crash would.
type recording struct {
	sdk.Transport
	f *fakeServer
}

func (r recording) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err == nil {
		r.f.conns = append(r.f.conns, c) // under f.mu: transport() holds it
	}
	return c, err
}

// echoTool answers "<name>: <arguments>".
func echoTool(name string) (*sdk.Tool, sdk.ToolHandler) {
	return &sdk.Tool{
			Name:        name,
			Description: "Echo the message back (" + name + ").",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`),
		}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + ": " + string(req.Params.Arguments)}}}, nil
		}
}

func newSDKServer(opts *sdk.ServerOptions, tools ...string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1.0.0"}, opts)
	for _, n := range tools {
		s.AddTool(echoTool(n))
	}
	return s
}

func newFakeServer(t *testing.T, opts *sdk.ServerOptions, tools ...string) *fakeServer {
	return &fakeServer{t: t, server: newSDKServer(opts, tools...)}
}

func (f *fakeServer) transport() sdk.Transport {
	f.mu.Lock()
	defer f.mu.Unlock()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.server.Connect(context.Background(), recording{st, f}, nil)
	if err != nil {
		panic(fmt.Sprintf("fake server connect: %v", err))
	}
	f.sessions = append(f.sessions, ss)
	return ct
}

// swap makes later connections reach s (a restarted server).
func (f *fakeServer) swap(s *sdk.Server) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.server = s
}

// drop closes every live server-side session, as a crashed server would:
// the connection first, then the session. Closing only the session can
// hang in go-sdk v1.8.0 when the client's implicit subscriptions/listen
// request arrives while Close runs (Close cancels the listens it has seen,
// then waits for every in-flight handler, and a listen that came after
// parks until its context ends); a closed connection cancels every
// in-flight handler.
func (f *fakeServer) drop() {
	f.mu.Lock()
	ss, cs := f.sessions, f.conns
	f.sessions, f.conns = nil, nil
	f.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
	for _, s := range ss {
		_ = s.Close()
	}
}

// gated delays a transport's Connect until gate is closed.
type gated struct {
	gate  <-chan struct{}
	inner func() sdk.Transport
}

func (g gated) Connect(ctx context.Context) (sdk.Connection, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.inner().Connect(ctx)
}

// session is a minimal execute.Session over a plan, for driving the
// dispatcher the way package request's sessions do.
type session struct {
	plan   *deferral.Plan
	loaded *toolsearch.LoadedSet
}

func newSession(t *testing.T, reg *registry.Registry, policy deferral.Policy) *session {
	t.Helper()
	plan, err := policy.Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	return &session{plan: plan, loaded: toolsearch.NewLoadedSet()}
}

func (s *session) ID() string { return "test-session" }

func (s *session) Lookup(name string) (*registry.Tool, bool, bool) {
	t, ok := s.plan.Snapshot().Tool(name)
	if !ok || s.plan.State(name) == deferral.Hidden {
		return nil, false, false
	}
	return t, s.plan.State(name) == deferral.Deferred, true
}

func (s *session) Loaded(name string) bool { return s.loaded.Has(name) }
func (s *session) MarkLoaded(name string)  { s.loaded.Add(name) }
func (s *session) VisibleNames() []string {
	var out []string
	for _, t := range s.plan.Resident() {
		out = append(out, t.Name)
	}
	for _, t := range s.plan.Deferred() {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// toolBytes is the canonical form of a group's tools as a prefix would carry
// them: name, description, model schema and annotations, sorted by name.
func toolBytes(t *testing.T, snap *registry.Snapshot, group string) []byte {
	t.Helper()
	type wire struct {
		Name        string                `json:"name"`
		Description string                `json:"description"`
		Schema      json.RawMessage       `json:"schema"`
		Annotations *registry.Annotations `json:"annotations,omitempty"`
	}
	var out []wire
	for _, tl := range snap.Tools() {
		if tl.Group == group {
			out = append(out, wire{tl.Name, tl.Description, tl.ModelSchema(), tl.Annotations})
		}
	}
	g, ok := snap.Group(group)
	require.True(t, ok, "group %q", group)
	b, err := json.Marshal(struct {
		Description string `json:"group_description"`
		Tools       []wire `json:"tools"`
	}{g.Description, out})
	require.NoError(t, err)
	return b
}

// call runs the handler of an exposed tool name directly.
func call(t *testing.T, ctx context.Context, reg *registry.Registry, name, args string) registry.Result {
	t.Helper()
	tl, ok := reg.Snapshot().Tool(name)
	require.True(t, ok, "tool %q not registered", name)
	require.NotNil(t, tl.Handler, "tool %q has no handler", name)
	res, err := tl.Handler(ctx, json.RawMessage(args))
	require.NoError(t, err, "an MCP handler never returns a Go error")
	return res
}

// state returns name's connection state, for the tests' assertions.
func (m *Manager) state(name string) (connState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.conns[name]
	if !ok {
		return stateClosed, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	return c.state, nil
}

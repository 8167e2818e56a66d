package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// connState is a managed server's connection state.
type connState uint8

// The connection states.
const (
	// stateConnecting: an attempt (first or reconnect) is running.
	stateConnecting connState = iota
	// stateReady: connected; calls go to the server.
	stateReady
	// stateUnavailable: the connection failed or was lost; calls answer
	// "unavailable, retry later" and start a reconnect.
	stateUnavailable
	// stateClosed: the Manager was closed.
	stateClosed
)

func (s connState) String() string {
	switch s {
	case stateConnecting:
		return "connecting"
	case stateReady:
		return "ready"
	case stateUnavailable:
		return "unavailable"
	}
	return "closed"
}

// Change reports that a server's group in the registry changed: its
// first listing arrived, or a reconnect or tools/list_changed listed
// different tools. Sessions that [Manager.Follow] the Manager have
// adopted the change (request.Session.Sync) when it is reported; the
// names are the server's [request.ToolsChange].
type Change struct {
	// ToolsChange holds the server's (group's) name and the exposed names
	// of the tools that appeared, disappeared, or changed description,
	// schema or annotations, each sorted.
	request.ToolsChange
	// First is true for the server's first listing in this Manager.
	First bool
	// DescriptionChanged reports a new group description.
	DescriptionChanged bool
	// Version is the registry version after the change.
	Version uint64
}

// Options configures a [Manager]. Nil means defaults.
type Options struct {
	// OnToolsChanged, when set, is called after every change the Manager
	// makes to the registry. It runs on the Manager's goroutine and must
	// not call back into the Manager's connect methods.
	OnToolsChanged func(Change)
	// ConnectTimeout bounds one background connection attempt (initialize
	// and the full tools listing); 0 means 60 seconds. Foreground calls use
	// their context.
	ConnectTimeout time.Duration
	// RetryInterval is the least time between two automatic reconnect
	// attempts of one server; 0 means 2 seconds.
	RetryInterval time.Duration
	// NoAutoReconnect disables the reconnect that a call on an unavailable
	// server starts.
	NoAutoReconnect bool
	// ClientName and ClientVersion identify the client to servers; empty
	// means "toolshelf" and "0".
	ClientName, ClientVersion string
	// Logger receives connection events; nil discards them.
	Logger *slog.Logger
}

// Manager connects MCP servers and keeps their groups in a registry. All
// methods are safe for concurrent use.
type Manager struct {
	reg  *registry.Registry
	opts Options

	ctx    context.Context // lifetime of background work; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	applyMu sync.Mutex // serializes registry updates and their callbacks

	mu     sync.Mutex
	closed bool
	conns  map[string]*conn

	followMu  sync.Mutex
	followers map[*request.Session]struct{} // see Follow
}

// conn is one managed server. Fields after srv are guarded by Manager.mu.
type conn struct {
	srv Server

	state   connState
	session *sdk.ClientSession
	err     error         // why the server is unavailable
	done    chan struct{} // closed when the running attempt ends
	listed  bool          // the group was registered at least once
	lastTry time.Time     // end of the last attempt
}

// New returns a Manager that registers servers' tools in reg. opts may be nil.
func New(reg *registry.Registry, opts *Options) *Manager {
	m := &Manager{reg: reg, conns: map[string]*conn{}}
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.ConnectTimeout <= 0 {
		m.opts.ConnectTimeout = 60 * time.Second
	}
	if m.opts.RetryInterval <= 0 {
		m.opts.RetryInterval = 2 * time.Second
	}
	if m.opts.ClientName == "" {
		m.opts.ClientName = "toolshelf"
	}
	if m.opts.ClientVersion == "" {
		m.opts.ClientVersion = "0"
	}
	if m.opts.Logger == nil {
		m.opts.Logger = slog.New(slog.DiscardHandler)
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Connect connects each server, lists all its tools (every page) and
// registers its group, returning when every attempt has ended or ctx ends;
// the attempts run at once, bounded by ctx alone. While they run the
// servers are [Manager.Pending]. It returns the first error in the order
// given: nothing is connected when a server is invalid ([ErrConfig]), and
// a server that fails stays managed as unavailable — [Manager.Reconnect]
// retries it — with the others connected. Pass the servers of an
// mcpServers file ([LoadConfig]) to connect them all and wait.
func (m *Manager) Connect(ctx context.Context, srvs ...Server) error {
	if err := checkAll(srvs); err != nil {
		return err
	}
	errs := make([]error, len(srvs))
	var wg sync.WaitGroup
	for i, srv := range srvs {
		c, err := m.add(srv, false)
		if err != nil {
			errs[i] = err
			break
		}
		if len(srvs) == 1 {
			errs[i] = m.attempt(ctx, c)
			break
		}
		wg.Go(func() { errs[i] = m.attempt(ctx, c) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Start connects each server in the background and returns at once; a
// server is [Manager.Pending] until its attempt ends, bounded by
// [Options.ConnectTimeout]. [Manager.Wait] waits for one. Nothing is
// started when a server is invalid ([ErrConfig]). Pass the servers of an
// mcpServers file ([LoadConfig]) to start them all; a session lists the
// ones still connecting through [Manager.Pending].
func (m *Manager) Start(srvs ...Server) error {
	if err := checkAll(srvs); err != nil {
		return err
	}
	for _, srv := range srvs {
		c, err := m.add(srv, true)
		if err != nil {
			return err
		}
		go func() {
			defer m.wg.Done()
			ctx, cancel := context.WithTimeout(m.ctx, m.opts.ConnectTimeout)
			defer cancel()
			_ = m.attempt(ctx, c)
		}()
	}
	return nil
}

// checkAll checks every server before any is added.
func checkAll(srvs []Server) error {
	for i := range srvs {
		if err := srvs[i].check(); err != nil {
			return err
		}
	}
	return nil
}

// add registers srv as connecting and returns its conn with a fresh attempt.
// With bg it counts the background attempt in m.wg while m.mu is held, so
// that Close cannot miss it.
func (m *Manager) add(srv Server, bg bool) (*conn, error) {
	if err := srv.check(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if _, ok := m.conns[srv.Name]; ok {
		return nil, fmt.Errorf("%w: %q", ErrDuplicateServer, srv.Name)
	}
	c := &conn{srv: srv, state: stateConnecting, done: make(chan struct{})}
	m.conns[srv.Name] = c
	if bg {
		m.wg.Add(1)
	}
	return c, nil
}

// Reconnect closes name's connection, if any, connects again and relists
// its tools. Same tools leave the registry untouched; different ones
// replace the group and are reported to [Options.OnToolsChanged]. If an
// attempt is already running, Reconnect waits for it instead.
func (m *Manager) Reconnect(ctx context.Context, name string) error {
	m.mu.Lock()
	c, ok := m.conns[name]
	switch {
	case m.closed:
		m.mu.Unlock()
		return ErrClosed
	case !ok:
		m.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownServer, name)
	case c.state == stateConnecting:
		done := c.done
		m.mu.Unlock()
		return m.waitDone(ctx, name, done)
	}
	old := c.session
	c.session, c.state, c.done = nil, stateConnecting, make(chan struct{})
	m.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	return m.attempt(ctx, c)
}

// Wait waits until no connection attempt of name is running and returns its
// error, or ctx's.
func (m *Manager) Wait(ctx context.Context, name string) error {
	m.mu.Lock()
	c, ok := m.conns[name]
	if !ok {
		m.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	done := c.done
	m.mu.Unlock()
	return m.waitDone(ctx, name, done)
}

// waitDone waits for a connection attempt's done channel and returns the
// attempt's error, or ctx's.
func (m *Manager) waitDone(ctx context.Context, name string, done <-chan struct{}) error {
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return m.Err(name)
}

// Pending returns the servers with a connection attempt running, sorted: a
// session passes it as request.Config.Pending so that a miss can say "not
// ready yet".
func (m *Manager) Pending() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for n, c := range m.conns {
		if c.state == stateConnecting {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Servers returns the managed server names, sorted.
func (m *Manager) Servers() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.conns))
	for n := range m.conns {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Err returns why name is unavailable — its last attempt's error, which
// wraps [ErrUnavailable] when the connection failed or was lost, or
// [ErrClosed] after [Manager.Close] — or nil when it is ready or connecting. With [Manager.Pending] it tells a
// server's state: connecting when pending, unavailable when Err is not
// nil, ready otherwise.
func (m *Manager) Err(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.conns[name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	if c.state == stateUnavailable || c.state == stateClosed {
		return c.err
	}
	return nil
}

// Close disconnects every server and waits for background work. The
// registry keeps the groups; their handlers answer "unavailable".
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var sessions []*sdk.ClientSession
	for _, c := range m.conns {
		if c.session != nil {
			sessions = append(sessions, c.session)
		}
		c.session, c.state, c.err = nil, stateClosed, ErrClosed
	}
	m.mu.Unlock()
	m.cancel()
	var errs []error
	for _, s := range sessions {
		if err := s.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	m.wg.Wait()
	return errors.Join(errs...)
}

// attempt runs one connection attempt of c, whose state is connecting and
// whose done channel is fresh.
func (m *Manager) attempt(ctx context.Context, c *conn) (err error) {
	name := c.srv.Name
	var cs *sdk.ClientSession
	defer func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		c.lastTry = time.Now()
		switch {
		case m.closed:
			c.state, c.err = stateClosed, ErrClosed
			if cs != nil {
				go cs.Close()
			}
			err = ErrClosed
		case err != nil:
			c.state, c.err = stateUnavailable, err
			if cs != nil {
				go cs.Close()
			}
		default:
			c.state, c.err, c.session = stateReady, nil, cs
			m.watch(c, cs)
		}
		close(c.done)
	}()
	client := sdk.NewClient(
		&sdk.Implementation{Name: m.opts.ClientName, Version: m.opts.ClientVersion},
		&sdk.ClientOptions{
			Capabilities: &sdk.ClientCapabilities{},
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
				m.refreshLater(name)
			},
		})
	t, proc := c.srv.transport()
	cs, err = client.Connect(ctx, t, nil)
	if err != nil {
		if proc != nil {
			err = proc.startError(name, err)
		}
		return fmt.Errorf("%w: server %q: connect: %w", ErrUnavailable, name, err)
	}
	if err := m.list(ctx, c, cs); err != nil {
		var le *listError
		if proc != nil && errors.As(err, &le) {
			// The server failed while listing: close it now, so that its
			// exit status and last words are in the error.
			closed := cs
			cs = nil
			closed.Close()
			return fmt.Errorf("%w: server %q: tools/list: %w", ErrUnavailable, name, proc.startError(name, le.err))
		}
		return err
	}
	return nil
}

// listError is tools/list failing: the client's error.
type listError struct {
	name string
	err  error
}

func (e *listError) Error() string {
	return fmt.Sprintf("%s: server %q: tools/list: %s", ErrUnavailable, e.name, e.err)
}

func (e *listError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// list lists every tool of cs and applies the listing to the registry.
func (m *Manager) list(ctx context.Context, c *conn, cs *sdk.ClientSession) error {
	name := c.srv.Name
	var tools []registry.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return &listError{name: name, err: err}
		}
		rt, err := convertTool(t)
		if err != nil {
			return fmt.Errorf("mcp: server %q: %w", name, err)
		}
		rt.Handler = m.handler(name, t.Name)
		tools = append(tools, rt)
	}
	return m.apply(c, groupDescription(c.srv.Description, cs.InitializeResult()), tools)
}

// apply registers a listing unless it equals what the registry holds.
func (m *Manager) apply(c *conn, desc string, tools []registry.Tool) error {
	m.applyMu.Lock()
	defer m.applyMu.Unlock()
	name := c.srv.Name
	snap := m.reg.Snapshot()
	g, had := snap.Group(name)
	descChanged := !had || g.Description != desc
	if had && !descChanged && sameTools(snap, name, tools) {
		m.opts.Logger.Debug("mcp: same tools, registry untouched", "server", name, "tools", len(tools))
		return nil
	}
	added, removed, changed := diffNames(snap, name, tools)
	group := c.srv.Group
	group.Name, group.Description = name, desc
	if err := m.reg.ReplaceGroup(group, tools); err != nil {
		return fmt.Errorf("mcp: server %q: %w", name, err)
	}
	next := m.reg.Snapshot()
	added, removed, changed = exposed(next, name, added), exposed(snap, name, removed), exposed(snap, name, changed)
	m.mu.Lock()
	first := !c.listed
	c.listed = true
	m.mu.Unlock()
	m.opts.Logger.Info("mcp: tools registered", "server", name, "tools", len(tools), "added", len(added), "removed", len(removed), "changed", len(changed))
	for _, j := range m.reg.Rejected() {
		if j.Group == name {
			// Left out by the registry (a schema that does not resolve,
			// loops, nests too deep ...); the rest of the server stays.
			m.opts.Logger.Warn("mcp: tool rejected", "server", name, "tool", j.Name, "reason", j.Err.Error())
		}
	}
	m.syncFollowers()
	if m.opts.OnToolsChanged != nil {
		m.opts.OnToolsChanged(Change{
			ToolsChange:        request.ToolsChange{Server: name, Added: added, Removed: removed, Changed: changed},
			First:              first,
			DescriptionChanged: had && descChanged,
			Version:            next.Version(),
		})
	}
	return nil
}

// watch marks c unavailable when cs ends without Close. m.mu must be held.
func (m *Manager) watch(c *conn, cs *sdk.ClientSession) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		err := cs.Wait()
		m.lost(c.srv.Name, cs, err)
	}()
}

// lost records that cs, name's session, ended or failed.
func (m *Manager) lost(name string, cs *sdk.ClientSession, cause error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.conns[name]
	if !ok || c.session != cs || m.closed {
		return
	}
	if cause == nil {
		cause = errors.New("connection closed")
	}
	c.session, c.state = nil, stateUnavailable
	c.err = fmt.Errorf("%w: server %q: disconnected: %w", ErrUnavailable, name, cause)
	m.opts.Logger.Warn("mcp: server disconnected", "server", name, "err", cause)
	go cs.Close()
}

// session returns name's live session, or nil and its state.
func (m *Manager) session(name string) (*sdk.ClientSession, connState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.conns[name]
	if !ok {
		return nil, stateClosed
	}
	return c.session, c.state
}

// kick starts a background reconnect of an unavailable server, at most one
// at a time and not sooner than RetryInterval after the last attempt.
func (m *Manager) kick(name string) {
	if m.opts.NoAutoReconnect {
		return
	}
	m.mu.Lock()
	c, ok := m.conns[name]
	if !ok || m.closed || c.state != stateUnavailable || time.Since(c.lastTry) < m.opts.RetryInterval {
		m.mu.Unlock()
		return
	}
	c.state, c.done = stateConnecting, make(chan struct{})
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		ctx, cancel := context.WithTimeout(m.ctx, m.opts.ConnectTimeout)
		defer cancel()
		_ = m.attempt(ctx, c)
	}()
}

// refreshLater relists name's tools after a tools/list_changed notification.
func (m *Manager) refreshLater(name string) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		cs, _ := m.session(name)
		if cs == nil {
			return // an attempt is running or the server is gone; it lists anew
		}
		m.mu.Lock()
		c := m.conns[name]
		m.mu.Unlock()
		ctx, cancel := context.WithTimeout(m.ctx, m.opts.ConnectTimeout)
		defer cancel()
		if err := m.list(ctx, c, cs); err != nil {
			m.opts.Logger.Warn("mcp: relisting after tools/list_changed failed", "server", name, "err", err)
		}
	}()
}

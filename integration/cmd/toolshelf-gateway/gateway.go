package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/integration/mcp"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// gateway is one toolshelf-gateway process: the upstream servers in a
// registry kept by an integration/mcp Manager, the pins, and a second
// registry — what is served — holding every upstream tool except the
// quarantined ones. Each downstream client session is a request.Session
// frozen on the served registry and synced with it.
type gateway struct {
	ctx    context.Context
	cancel context.CancelFunc

	rules *rulesFile
	pins  *pinStore
	log   io.Writer

	up     *registry.Registry
	m      *mcp.Manager
	procs  map[string]*process // stdio servers' processes, by name
	served *registry.Registry

	refreshMu sync.Mutex
	groupKey  map[string]string     // canonical key of each served group's tools
	twinWhy   map[string]string     // why each Twins line is not folded, if it is not
	held      map[string]quarantine // quarantined upstream tools
	followMu  sync.Mutex
	followers map[*request.Session]bool // sessions synced on each change

	failMu   sync.Mutex
	failures map[string]string // each unavailable server's last failure (why)

	ids    atomic.Uint64
	askKey []byte // binds a user's answer to its call (askToken)

	// store, when set, keeps the HTTP sessions' state (replicas share it).
	store    request.Store
	secret   []byte // signs stored records; nil: checksums only
	observer execute.Observer

	closers []func() error // run by close, after the servers (a trace file)

	accMu    sync.Mutex
	accounts []savings // the ended sessions' savings, oldest first (the last 100)
}

// gatewayOptions configures newGateway.
type gatewayOptions struct {
	rules *rulesFile
	pins  *pinStore
	log   io.Writer // connection events and server stderr; nil discards
	// connectTimeout bounds one connection attempt of a server.
	connectTimeout time.Duration
	// store, when set, keeps the state of HTTP sessions, so that replicas
	// sharing it serve one client session (see storeHandler).
	store request.Store
	// secret, when set (at least 16 bytes, the same on every replica),
	// signs stored records and the Ask answers' tokens.
	secret []byte
	// observer receives every dispatch of every session (spans, logs).
	observer execute.Observer
}

// newGateway returns a gateway for servers, started in the background.
func newGateway(servers []mcp.Server, o gatewayOptions) (*gateway, error) {
	g := &gateway{
		rules: o.rules, pins: o.pins, log: o.log,
		up: registry.New(nil), served: registry.New(nil),
		procs: map[string]*process{}, groupKey: map[string]string{}, failures: map[string]string{}, twinWhy: map[string]string{}, followers: map[*request.Session]bool{},
	}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	g.askKey = o.secret
	if len(g.askKey) == 0 {
		g.askKey = make([]byte, 32)
		_, _ = rand.Read(g.askKey)
	}
	g.store, g.secret, g.observer = o.store, o.secret, o.observer
	g.m = mcp.New(g.up, &mcp.Options{
		OnToolsChanged: func(mcp.Change) { g.refresh() },
		ConnectTimeout: o.connectTimeout,
		ClientName:     "toolshelf-gateway",
		ClientVersion:  version,
	})
	srvs := slices.Clone(servers)
	for i := range srvs {
		if p := watchStdio(&srvs[i], o.log); p != nil {
			g.procs[srvs[i].Name] = p
		}
	}
	if err := g.m.Start(srvs...); err != nil {
		g.cancel()
		return nil, err
	}
	go g.supervise(500 * time.Millisecond)
	return g, nil
}

// waitReady waits until no server is connecting, or d has passed.
func (g *gateway) waitReady(d time.Duration) {
	ctx, cancel := context.WithTimeout(g.ctx, d)
	defer cancel()
	for _, n := range g.m.Servers() {
		_ = g.m.Wait(ctx, n)
	}
	g.refresh()
}

// close stops the servers.
func (g *gateway) close() error {
	g.cancel()
	errs := []error{g.m.Close()}
	for _, c := range g.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// refresh makes the served registry the upstream one minus the quarantined
// tools, and syncs every following session with it.
func (g *gateway) refresh() {
	g.refreshMu.Lock()
	defer g.refreshMu.Unlock()
	snap := g.up.Snapshot()
	held, err := g.pins.observe(snap)
	if err != nil {
		g.logf("pins: %v", err)
	}
	for name, q := range held {
		if _, was := g.held[name]; !was {
			g.logf("quarantined %s: %s; approve it with: toolshelf-gateway approve --pins %s %s", name, q.Reason, orNone(g.pins.path), name)
		}
	}
	g.held = held
	groups := map[string]servedGroup{}
	for _, grp := range snap.Groups() {
		if grp.Source != registry.SourceMCP {
			continue
		}
		sg := servedGroup{group: *grp}
		for _, t := range snap.Tools() {
			if t.Group != grp.Name || held[t.Name].Reason != "" {
				continue
			}
			c := *t
			c.Name, c.Group, c.Warnings = t.OriginalName, "", nil
			sg.tools = append(sg.tools, c)
		}
		groups[grp.Name] = sg
	}
	g.foldTwins(groups)
	if g.applyServed(groups) {
		g.syncFollowers()
	}
}

// servedGroup is one group of the served registry: a server's, or twins
// folded into one.
type servedGroup struct {
	group registry.Group
	tools []registry.Tool
}

// applyServed makes the served registry hold groups, replacing a group
// only when its tools or description changed, and removing the groups it
// no longer holds (twins folded since). It reports whether anything changed.
func (g *gateway) applyServed(groups map[string]servedGroup) bool {
	changed := false
	for name := range g.groupKey {
		if _, ok := groups[name]; !ok {
			if err := g.served.RemoveGroup(name); err != nil {
				g.logf("server %s: %v", name, err)
			}
			delete(g.groupKey, name)
			changed = true
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		sg := groups[name]
		var key bytes.Buffer
		key.WriteString(sg.group.Description)
		for i := range sg.tools {
			key.WriteByte(0)
			key.WriteString(sg.tools[i].Name)
			key.WriteByte(0)
			key.Write(sg.tools[i].CanonicalDefinition())
		}
		if g.groupKey[name] == key.String() {
			continue
		}
		if err := g.served.ReplaceGroup(sg.group, sg.tools); err != nil {
			g.logf("server %s: %v", name, err)
			continue
		}
		g.groupKey[name] = key.String()
		changed = true
	}
	return changed
}

func (g *gateway) syncFollowers() {
	g.followMu.Lock()
	ss := make([]*request.Session, 0, len(g.followers))
	for s := range g.followers {
		ss = append(ss, s)
	}
	g.followMu.Unlock()
	snap := g.served.Snapshot()
	for _, s := range ss {
		if _, err := s.Sync(g.ctx, snap); err != nil {
			g.logf("session cannot follow the servers: %v", err)
		}
	}
}

// follow keeps s synced with the served registry until the returned
// function is called.
func (g *gateway) follow(s *request.Session) func() {
	g.followMu.Lock()
	g.followers[s] = true
	g.followMu.Unlock()
	_, _ = s.Sync(g.ctx, g.served.Snapshot())
	return func() {
		g.followMu.Lock()
		delete(g.followers, s)
		g.followMu.Unlock()
	}
}

// newSession returns a session for one downstream client of profile p: the
// core's session, dispatcher and policy, as a Go harness builds them.
func (g *gateway) newSession(p *profile, ask execute.Approver) (*request.Session, string, error) {
	id := "gateway-" + strconv.FormatUint(g.ids.Add(1), 10)
	if p.name != "" {
		id += "-" + p.name
	}
	cfg, err := g.sessionConfig(p, ask, id)
	if err != nil {
		return nil, "", err
	}
	s, err := request.NewSession(cfg)
	return s, id, err
}

// sessionConfig is the configuration of a session of profile p: the same
// on every replica for the same servers and rules.
func (g *gateway) sessionConfig(p *profile, ask execute.Approver, id string) (request.Config, error) {
	disp, err := execute.New(&execute.Options{Permissions: p.perms, Ask: ask, Hooks: p.hooks, Observer: g.observer})
	if err != nil {
		return request.Config{}, err
	}
	pol := &deferral.Policy{Default: deferral.DefaultDefer, Denied: profileDenied(p, disp)}
	if len(p.layer.Rules) > 0 {
		pol.Layers = []deferral.Layer{p.layer}
	}
	view := deferral.View{}
	if len(p.mode.Allow) > 0 {
		view.Mode = deferral.Mode{Name: "gateway", Allow: p.mode.Allow}
	}
	return request.Config{
		ID:       id,
		Snapshot: g.served.Snapshot(),
		Policy:   pol,
		View:     view,
		// The provider and model shape only request bodies, which the
		// gateway never builds: the MCP client's model gets the tools.
		Provider:      request.Anthropic,
		Model:         "mcp-client",
		Extra:         map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")},
		Dispatcher:    disp,
		Pending:       g.m.Pending(),
		SelfBuilt:     true, // tool_search and defer_execute, even with nothing deferred
		AcceptChanges: true, // the served registry holds approved definitions only
	}, nil
}

// profileDenied hides the tools of servers outside p and the tools the
// dispatcher's rules deny every call of.
func profileDenied(p *profile, disp *execute.Dispatcher) func(*registry.Tool) (string, bool) {
	return func(t *registry.Tool) (string, bool) {
		if t.Source == registry.SourceMCP && !p.serves(t.Group) {
			return fmt.Sprintf("profile %s serves %v only", p.name, p.servers), true
		}
		return disp.Denied(t)
	}
}

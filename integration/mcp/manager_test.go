package mcp

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newManager(t *testing.T, reg *registry.Registry, opts *Options) *Manager {
	m := New(reg, opts)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func TestConnectListsEveryPage(t *testing.T) {
	ctx := testCtx(t)
	names := []string{"a", "b", "c", "d", "e", "f", "g"}
	fs := newFakeServer(t, &sdk.ServerOptions{PageSize: 2}, names...)
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	require.NoError(t, m.Connect(ctx, Server{Name: "paged", Transport: fs.transport}))

	snap := reg.Snapshot()
	var got []string
	for _, tl := range snap.Tools() {
		if tl.Group == "paged" {
			got = append(got, tl.Name)
			assert.Equal(t, registry.SourceMCP, tl.Source)
		}
	}
	want := make([]string, len(names))
	for i, n := range names {
		want[i] = toolname.MCPName("paged", n)
	}
	assert.Equal(t, want, got, "7 tools over pages of 2: every page listed")
	st, err := m.state("paged")
	require.NoError(t, err)
	assert.Equal(t, stateReady, st)
	assert.Empty(t, m.Pending())
}

func TestHandlerForwardsToToolsCall(t *testing.T) {
	ctx := testCtx(t)
	srv := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "two", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "one"}, &sdk.TextContent{Text: "two"}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "fails", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk full"}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "structured", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]int{"n": 3}}, nil
		})
	fs := &fakeServer{t: t, server: srv}
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	require.NoError(t, m.Connect(ctx, Server{Name: "s", Transport: fs.transport}))

	tests := []struct {
		tool    string
		want    string
		isError bool
	}{
		{"two", "one\ntwo", false},
		{"fails", "disk full", true},
		{"structured", `{"n":3}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res := call(t, ctx, reg, toolname.MCPName("s", tt.tool), `{}`)
			assert.Equal(t, tt.want, res.Text)
			assert.Equal(t, tt.isError, res.IsError, "isError is kept")
		})
	}
}

func TestPendingWhileConnecting(t *testing.T) {
	ctx := testCtx(t)
	gate := make(chan struct{})
	fs := newFakeServer(t, nil, "echo")
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	slow := Server{Name: "zeta", Transport: func() sdk.Transport { return gated{gate: gate, inner: fs.transport} }}
	require.NoError(t, m.Start(slow))
	require.NoError(t, m.Start(Server{Name: "alpha", Transport: func() sdk.Transport { return gated{gate: gate, inner: fs.transport} }}))

	assert.Equal(t, []string{"alpha", "zeta"}, m.Pending(), "sorted")
	_, ok := reg.Snapshot().Group("zeta")
	assert.False(t, ok, "no group before the first listing")

	close(gate)
	require.NoError(t, m.Wait(ctx, "zeta"))
	require.NoError(t, m.Wait(ctx, "alpha"))
	assert.Empty(t, m.Pending())
	res := call(t, ctx, reg, "mcp__zeta__echo", `{"message":"hi"}`)
	assert.Equal(t, `echo: {"message":"hi"}`, res.Text)
}

// TestManyServers: Start and Connect take several servers (an mcpServers
// file's); an invalid one among them starts nothing, and Connect returns
// once every attempt has ended, with a failed server left unavailable and
// the others ready.
func TestManyServers(t *testing.T) {
	ctx := testCtx(t)
	fs := newFakeServer(t, nil, "echo")
	reg := registry.New(nil)
	m := newManager(t, reg, &Options{NoAutoReconnect: true})
	good := Server{Name: "a", Transport: fs.transport}
	require.ErrorIs(t, m.Start(good, Server{Name: "bad"}), ErrConfig)
	require.ErrorIs(t, m.Connect(ctx, good, Server{Name: "bad"}), ErrConfig)
	assert.Empty(t, m.Servers(), "nothing started when one entry is invalid")

	err := m.Connect(ctx, good, Server{Name: "broken", Command: []string{"/nonexistent/mcp-server"}}, Server{Name: "b", Transport: fs.transport})
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), `"broken"`)
	assert.Empty(t, m.Pending(), "every attempt ended")
	require.NoError(t, m.Err("a"))
	require.NoError(t, m.Err("b"))
	require.ErrorIs(t, m.Err("broken"), ErrUnavailable)
	assert.Equal(t, `echo: {"message":"hi"}`, call(t, ctx, reg, "mcp__b__echo", `{"message":"hi"}`).Text)

	require.NoError(t, m.Start(Server{Name: "c", Transport: fs.transport}, Server{Name: "d", Transport: fs.transport}))
	require.NoError(t, m.Wait(ctx, "c"))
	require.NoError(t, m.Wait(ctx, "d"))
	assert.Equal(t, []string{"a", "b", "broken", "c", "d"}, m.Servers())
}

func TestDisconnectAnswersUnavailable(t *testing.T) {
	ctx := testCtx(t)
	fs := newFakeServer(t, nil, "echo")
	reg := registry.New(nil)
	m := newManager(t, reg, &Options{NoAutoReconnect: true})
	require.NoError(t, m.Connect(ctx, Server{Name: "flaky", Transport: fs.transport}))
	before := reg.Snapshot().Version()

	fs.drop()
	res := call(t, ctx, reg, "mcp__flaky__echo", `{"message":"hi"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "server flaky unavailable, retry later")

	st, err := m.state("flaky")
	require.NoError(t, err)
	assert.Equal(t, stateUnavailable, st)
	require.ErrorIs(t, m.Err("flaky"), ErrUnavailable)
	_, ok := reg.Snapshot().Tool("mcp__flaky__echo")
	assert.True(t, ok, "a lost server's names stay in the registry")
	assert.Equal(t, before, reg.Snapshot().Version(), "losing a server changes nothing in the registry")

	// A second call while still down answers the same way.
	res = call(t, ctx, reg, "mcp__flaky__echo", `{"message":"hi"}`)
	assert.Contains(t, res.Text, "server flaky unavailable, retry later")
}

func TestReconnect(t *testing.T) {
	tests := []struct {
		name        string
		restartWith []string
		wantChange  *Change
	}{
		{name: "same tools leave the registry untouched", restartWith: []string{"b", "a"}},
		{
			name:        "different tools replace the group",
			restartWith: []string{"a", "c"},
			wantChange:  &Change{ToolsChange: request.ToolsChange{Server: "srv", Added: []string{"mcp__srv__c"}, Removed: []string{"mcp__srv__b"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			fs := newFakeServer(t, nil, "a", "b")
			reg := registry.New(nil)
			var changes []Change
			m := newManager(t, reg, &Options{NoAutoReconnect: true, OnToolsChanged: func(c Change) { changes = append(changes, c) }})
			require.NoError(t, m.Connect(ctx, Server{Name: "srv", Transport: fs.transport}))
			require.Len(t, changes, 1)
			assert.True(t, changes[0].First)
			assert.Equal(t, []string{"mcp__srv__a", "mcp__srv__b"}, changes[0].Added)
			snap0 := reg.Snapshot()
			bytes0 := toolBytes(t, snap0, "srv")

			fs.drop()
			assert.Contains(t, call(t, ctx, reg, "mcp__srv__a", `{"message":"x"}`).Text, "unavailable, retry later")
			fs.swap(newSDKServer(nil, tt.restartWith...))
			require.NoError(t, m.Reconnect(ctx, "srv"))

			if tt.wantChange == nil {
				assert.Same(t, snap0, reg.Snapshot(), "same tools: not even the snapshot is rebuilt")
				assert.Equal(t, string(bytes0), string(toolBytes(t, reg.Snapshot(), "srv")))
				assert.Len(t, changes, 1, "no tools-changed event")
			} else {
				require.Len(t, changes, 2)
				got := changes[1]
				assert.Equal(t, tt.wantChange.Added, got.Added)
				assert.Equal(t, tt.wantChange.Removed, got.Removed)
				assert.Empty(t, got.Changed)
				assert.False(t, got.First)
				assert.Equal(t, reg.Snapshot().Version(), got.Version)
				_, ok := reg.Snapshot().Tool("mcp__srv__b")
				assert.False(t, ok)
			}
			res := call(t, ctx, reg, "mcp__srv__a", `{"message":"back"}`)
			assert.Equal(t, `a: {"message":"back"}`, res.Text)
			assert.False(t, res.IsError)
		})
	}
}

func TestCallStartsReconnect(t *testing.T) {
	ctx := testCtx(t)
	fs := newFakeServer(t, nil, "echo")
	reg := registry.New(nil)
	m := newManager(t, reg, &Options{RetryInterval: time.Nanosecond})
	require.NoError(t, m.Connect(ctx, Server{Name: "flaky", Transport: fs.transport}))
	snap0 := reg.Snapshot()

	fs.drop()
	res := call(t, ctx, reg, "mcp__flaky__echo", `{"message":"1"}`)
	assert.Contains(t, res.Text, "unavailable, retry later")
	require.NoError(t, m.Wait(ctx, "flaky"), "the failed call started a reconnect")
	res = call(t, ctx, reg, "mcp__flaky__echo", `{"message":"2"}`)
	assert.Equal(t, `echo: {"message":"2"}`, res.Text)
	assert.Same(t, snap0, reg.Snapshot())
}

func TestToolListChangedRelists(t *testing.T) {
	ctx := testCtx(t)
	fs := newFakeServer(t, nil, "a")
	reg := registry.New(nil)
	changed := make(chan Change, 4)
	m := newManager(t, reg, &Options{OnToolsChanged: func(c Change) { changed <- c }})
	require.NoError(t, m.Connect(ctx, Server{Name: "live", Transport: fs.transport}))
	<-changed // first listing

	fs.server.AddTool(echoTool("b")) // the server sends notifications/tools/list_changed
	select {
	case c := <-changed:
		assert.Equal(t, []string{"mcp__live__b"}, c.Added)
		assert.False(t, c.First)
	case <-ctx.Done():
		t.Fatal("no tools-changed event after tools/list_changed")
	}
	_, ok := reg.Snapshot().Tool("mcp__live__b")
	assert.True(t, ok)
}

func TestStreamableHTTP(t *testing.T) {
	ctx := testCtx(t)
	srv := newSDKServer(&sdk.ServerOptions{Instructions: "Echo things over HTTP."}, "echo")
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	require.NoError(t, m.Connect(ctx, Server{Name: "web", URL: hs.URL}))

	g, ok := reg.Snapshot().Group("web")
	require.True(t, ok)
	assert.Equal(t, "Echo things over HTTP.", g.Description, "instructions describe the group")
	res := call(t, ctx, reg, "mcp__web__echo", `{"message":"over http"}`)
	assert.Equal(t, `echo: {"message":"over http"}`, res.Text)
}

func TestGroupDescription(t *testing.T) {
	tests := []struct {
		name  string
		given string
		opts  *sdk.ServerOptions
		impl  sdk.Implementation
		want  string
	}{
		{"caller's wins", "Given.", &sdk.ServerOptions{Instructions: "Instr."}, sdk.Implementation{Name: "n", Title: "T"}, "Given."},
		{"instructions", "", &sdk.ServerOptions{Instructions: "  Instr.  "}, sdk.Implementation{Name: "n", Title: "T"}, "Instr."},
		{"serverInfo description", "", nil, sdk.Implementation{Name: "n", Title: "T", Description: "D."}, "D."},
		{"serverInfo title", "", nil, sdk.Implementation{Name: "n", Title: "T", Version: "9"}, "T"},
		{"serverInfo name, no version", "", nil, sdk.Implementation{Name: "n", Version: "9"}, "n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			impl := tt.impl
			srv := sdk.NewServer(&impl, tt.opts)
			srv.AddTool(echoTool("x"))
			fs := &fakeServer{t: t, server: srv}
			reg := registry.New(nil)
			m := newManager(t, reg, nil)
			require.NoError(t, m.Connect(ctx, Server{Name: "g", Description: tt.given, Transport: fs.transport}))
			g, ok := reg.Snapshot().Group("g")
			require.True(t, ok)
			assert.Equal(t, tt.want, g.Description)
		})
	}
}

// Servers that list the same tools in different orders, with schema keys in
// different orders, give the same registry bytes.
func TestDeterministicWhateverTheServerOrder(t *testing.T) {
	names := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
	schemas := []string{
		`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["b"]}`,
		`{"required":["b"],"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"type":"object"}`,
	}
	var first []byte
	for i := range 6 {
		ctx := testCtx(t)
		order := append([]string(nil), names...)
		r := rand.New(rand.NewPCG(uint64(i), 7))
		r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		srv := sdk.NewServer(&sdk.Implementation{Name: "det", Version: "1"}, nil)
		for j, n := range order {
			srv.AddTool(&sdk.Tool{Name: n, Description: "Tool " + n, InputSchema: json.RawMessage(schemas[(i+j)%2])},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return &sdk.CallToolResult{}, nil
				})
		}
		fs := &fakeServer{t: t, server: srv}
		reg := registry.New(nil)
		m := New(reg, nil)
		require.NoError(t, m.Connect(ctx, Server{Name: "det", Transport: fs.transport}))
		b := toolBytes(t, reg.Snapshot(), "det")
		require.NoError(t, m.Close())
		if first == nil {
			first = b
			assert.Contains(t, string(b), `"schema":{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["b"],"type":"object"}`, "schema keys sorted")
			continue
		}
		assert.Equal(t, string(first), string(b), "order %v", order)
	}
}

func TestServerConfigErrors(t *testing.T) {
	tr := func() sdk.Transport { return nil }
	tests := []struct {
		name string
		srv  Server
		want string
	}{
		{"empty name", Server{Command: []string{"x"}}, "server name"},
		{"double underscore", Server{Name: "a__b", Command: []string{"x"}}, `"__"`},
		{"trailing underscore", Server{Name: "github_", Command: []string{"x"}}, `start or end with "_"`},
		{"leading underscore", Server{Name: "_github", Command: []string{"x"}}, `start or end with "_"`},
		{"reserved", Server{Name: toolname.BuiltinGroup, Command: []string{"x"}}, "builtin"},
		{"no transport", Server{Name: "s"}, "exactly one"},
		{"two transports", Server{Name: "s", Command: []string{"x"}, URL: "http://x"}, "exactly one"},
		{"three transports", Server{Name: "s", Command: []string{"x"}, URL: "http://x", Transport: tr}, "got 3"},
		{"empty command", Server{Name: "s", Command: []string{""}}, "empty command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, registry.New(nil), nil)
			err := m.Connect(testCtx(t), tt.srv)
			require.ErrorIs(t, err, ErrConfig)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, m.Servers(), "a rejected config is not managed")
		})
	}
}

func TestManagerErrors(t *testing.T) {
	ctx := testCtx(t)
	fs := newFakeServer(t, nil, "a")
	m := newManager(t, registry.New(nil), nil)
	require.NoError(t, m.Connect(ctx, Server{Name: "s", Transport: fs.transport}))
	require.ErrorIs(t, m.Connect(ctx, Server{Name: "s", Transport: fs.transport}), ErrDuplicateServer)
	require.ErrorIs(t, m.Reconnect(ctx, "nope"), ErrUnknownServer)
	require.ErrorIs(t, m.Wait(ctx, "nope"), ErrUnknownServer)
	_, err := m.state("nope")
	require.ErrorIs(t, err, ErrUnknownServer)

	// A server whose process cannot start stays managed as unavailable.
	err = m.Connect(ctx, Server{Name: "broken", Command: []string{"/nonexistent/mcp-server"}})
	require.ErrorIs(t, err, ErrUnavailable)
	st, _ := m.state("broken")
	assert.Equal(t, stateUnavailable, st)
	assert.Equal(t, []string{"broken", "s"}, m.Servers())

	require.NoError(t, m.Close())
	require.ErrorIs(t, m.Connect(ctx, Server{Name: "late", Transport: fs.transport}), ErrClosed)
	require.ErrorIs(t, m.Reconnect(ctx, "s"), ErrClosed)
	tl, ok := m.reg.Snapshot().Tool("mcp__s__a")
	require.True(t, ok, "Close keeps the group")
	res, err := tl.Handler(ctx, json.RawMessage(`{"message":"x"}`))
	require.NoError(t, err)
	assert.Contains(t, res.Text, "unavailable, retry later")
}

func TestResultTextContentKinds(t *testing.T) {
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "hello"},
		&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
		&sdk.ResourceLink{Name: "readme", URI: "file:///r"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///t", Text: "embedded text"}},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b", MIMEType: "application/gzip", Blob: []byte("xx")}},
	}}
	got := strings.Split(resultText(res), "\n")
	assert.Equal(t, []string{
		"hello",
		"[image image/png, 5 bytes]",
		"[resource readme file:///r]",
		"embedded text",
		"[resource file:///b, application/gzip, 2 bytes]",
	}, got)
}

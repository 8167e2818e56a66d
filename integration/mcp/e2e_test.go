package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
)

// The real servers are npm packages pinned in testdata/mcp-servers.
const serversDir = "../../testdata/mcp-servers"

// npmServer returns the argv that starts an installed npm MCP server over
// stdio: a long run (see internal/testkit/longtest), skipped without TOOLSHELF_LONG=1.
func npmServer(t *testing.T, bin string, args ...string) []string {
	t.Helper()
	return longtest.NPMServer(t, serversDir, bin, args...)
}

func e2eCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// deferAll plans the registry with every tool deferred, as the issue asks.
func deferAll(t *testing.T, reg *registry.Registry) *session {
	t.Helper()
	s := newSession(t, reg, deferral.Policy{Default: deferral.DefaultDefer})
	require.Equal(t, deferral.Resident, s.plan.State(registry.ToolSearchName), "tool_search and defer_execute are resident")
	require.Equal(t, deferral.Resident, s.plan.State(registry.DeferExecuteName))
	for _, tl := range reg.Snapshot().Tools() {
		require.Equal(t, deferral.Deferred, s.plan.State(tl.Name), "%s is deferred", tl.Name)
	}
	return s
}

// hookLog records the target names the dispatcher's hooks saw.
type hookLog struct {
	mu    sync.Mutex
	calls []string
}

func (h *hookLog) hook() execute.Hook {
	return execute.Hook{Name: "record", Pattern: "mcp__*", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.calls = append(h.calls, c.Via+">"+c.Name)
		return execute.Verdict{}
	}}
}

func (h *hookLog) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.calls...)
}

func deferExecute(t *testing.T, ctx context.Context, d *execute.Dispatcher, s execute.Session, tool string, params any) registry.Result {
	t.Helper()
	args, err := json.Marshal(map[string]any{"tool_name": tool, "params": params})
	require.NoError(t, err)
	return d.Call(ctx, s, registry.DeferExecuteName, args)
}

func TestEverythingServerEndToEnd(t *testing.T) {
	argv := npmServer(t, "mcp-server-everything", "stdio")
	ctx := e2eCtx(t)
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	require.NoError(t, m.Connect(ctx, Server{Name: "everything", Command: argv}))

	snap := reg.Snapshot()
	g, ok := snap.Group("everything")
	require.True(t, ok)
	assert.NotEmpty(t, g.Description, "the server's instructions describe the group")
	for _, n := range []string{"echo", "get-sum"} {
		_, ok := snap.Tool(toolname.MCPName("everything", n))
		require.True(t, ok, "everything lists %s", n)
	}
	sess := deferAll(t, reg)

	// Search: the index names the tool, and a search loads its schema.
	s, err := toolsearch.New(sess.plan, nil)
	require.NoError(t, err)
	assert.Regexp(t, `\nmcp__everything:.*\n(  .*\n)*  echo\n`, s.IndexText(), "echo by its short name under the server's header")
	res, names := s.Load(ctx, json.RawMessage(`{"queries":["echo a message back"]}`), toolsearch.Scope{Loaded: sess.loaded, Pending: m.Pending()})
	for _, n := range names {
		sess.loaded.Add(n)
	}
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "mcp__everything__echo")
	require.True(t, sess.loaded.Has("mcp__everything__echo"), "search loaded echo's schema:\n%s", res.Text)

	// Call through defer_execute: the dispatcher forwards to the real server.
	var hooks hookLog
	d, err := execute.New(&execute.Options{Hooks: []execute.Hook{hooks.hook()}})
	require.NoError(t, err)
	res = deferExecute(t, ctx, d, sess, "mcp__everything__echo", map[string]any{"message": "hello from toolshelf"})
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "Echo: hello from toolshelf", res.Text, "the server's real answer")
	assert.Equal(t, []string{"defer_execute>mcp__everything__echo"}, hooks.names(), "the hook saw the target, not the wrapper")

	// A tool not loaded yet: the dispatcher answers with its schema first,
	// then the call goes through.
	res = deferExecute(t, ctx, d, sess, "mcp__everything__get-sum", map[string]any{"a": 2, "b": 3})
	assert.True(t, res.IsError, "first call of an unloaded tool returns its schema")
	assert.Contains(t, res.Text, "get-sum")
	require.True(t, sess.loaded.Has("mcp__everything__get-sum"))
	res = deferExecute(t, ctx, d, sess, "mcp__everything__get-sum", map[string]any{"a": 2, "b": 3})
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "2 and 3 is 5", "computed by the server")

	// Validation applies before the server is reached.
	before := len(hooks.names())
	res = deferExecute(t, ctx, d, sess, "mcp__everything__echo", map[string]any{"message": 42})
	assert.True(t, res.IsError)
	assert.NotContains(t, res.Text, "MCP error", "rejected by the dispatcher, not the server")
	assert.Len(t, hooks.names(), before, "an invalid call never reaches hooks or the server")
}

func TestEverythingPermissionDenies(t *testing.T) {
	argv := npmServer(t, "mcp-server-everything", "stdio")
	ctx := e2eCtx(t)
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	require.NoError(t, m.Connect(ctx, Server{Name: "everything", Command: argv}))
	sess := deferAll(t, reg)
	sess.MarkLoaded("mcp__everything__get-env")
	d, err := execute.New(&execute.Options{Permissions: execute.MustPermissions("Deny(mcp__everything__get-env)")})
	require.NoError(t, err)
	res := deferExecute(t, ctx, d, sess, "mcp__everything__get-env", map[string]any{})
	assert.True(t, res.IsError)
	assert.NotContains(t, res.Text, "PATH", "the environment never left the server")
}

func TestFilesystemServerEndToEnd(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("deferred loading works\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	argv := npmServer(t, "mcp-server-filesystem", root)
	ctx := e2eCtx(t)
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	require.NoError(t, m.Connect(ctx, Server{Name: "fs", Command: argv}))
	sess := deferAll(t, reg)

	s, err := toolsearch.New(sess.plan, nil)
	require.NoError(t, err)
	res, names := s.Load(ctx, json.RawMessage(`{"tool_names":["mcp__fs__list_directory","mcp__fs__read_text_file"]}`), toolsearch.Scope{Loaded: sess.loaded})
	for _, n := range names {
		sess.loaded.Add(n)
	}
	require.False(t, res.IsError, res.Text)
	require.True(t, sess.loaded.Has("mcp__fs__list_directory"))
	require.True(t, sess.loaded.Has("mcp__fs__read_text_file"))

	d, err := execute.New(nil)
	require.NoError(t, err)
	tests := []struct {
		name    string
		tool    string
		params  map[string]any
		want    []string
		isError bool
	}{
		{"list", "mcp__fs__list_directory", map[string]any{"path": root}, []string{"[FILE] notes.txt", "[DIR] sub"}, false},
		{"read", "mcp__fs__read_text_file", map[string]any{"path": filepath.Join(root, "notes.txt")}, []string{"deferred loading works"}, false},
		{"outside the allowed root", "mcp__fs__read_text_file", map[string]any{"path": "/etc/hostname"}, []string{"denied"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := deferExecute(t, ctx, d, sess, tt.tool, tt.params)
			assert.Equal(t, tt.isError, res.IsError, res.Text)
			for _, w := range tt.want {
				assert.Contains(t, res.Text, w)
			}
		})
	}
}

// A real server process dies: calls answer "unavailable, retry later", and
// the reconnect, listing the same tools, leaves every registry byte as it was.
func TestFilesystemServerCrashAndReconnect(t *testing.T) {
	root := t.TempDir()
	argv := npmServer(t, "mcp-server-filesystem", root)
	ctx := e2eCtx(t)

	var mu sync.Mutex
	var procs []*exec.Cmd
	transport := func() sdk.Transport {
		cmd := exec.Command(argv[0], argv[1:]...)
		mu.Lock()
		procs = append(procs, cmd)
		mu.Unlock()
		return &sdk.CommandTransport{Command: cmd}
	}
	reg := registry.New(nil)
	var changes []Change
	m := newManager(t, reg, &Options{NoAutoReconnect: true, OnToolsChanged: func(c Change) { changes = append(changes, c) }})
	require.NoError(t, m.Connect(ctx, Server{Name: "fs", Transport: transport}))
	snap0 := reg.Snapshot()
	bytes0 := toolBytes(t, snap0, "fs")
	sess := deferAll(t, reg)
	sess.MarkLoaded("mcp__fs__list_allowed_directories")
	d, err := execute.New(nil)
	require.NoError(t, err)

	res := deferExecute(t, ctx, d, sess, "mcp__fs__list_allowed_directories", map[string]any{})
	require.False(t, res.IsError, res.Text)

	mu.Lock()
	require.NoError(t, procs[0].Process.Kill())
	mu.Unlock()
	_, _ = procs[0].Process.Wait()

	res = deferExecute(t, ctx, d, sess, "mcp__fs__list_allowed_directories", map[string]any{})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "server fs unavailable, retry later")

	require.NoError(t, m.Reconnect(ctx, "fs"))
	assert.Same(t, snap0, reg.Snapshot(), "same tools: the registry did not change")
	assert.Equal(t, string(bytes0), string(toolBytes(t, reg.Snapshot(), "fs")))
	assert.Len(t, changes, 1, "only the first listing was an event")
	res = deferExecute(t, ctx, d, sess, "mcp__fs__list_allowed_directories", map[string]any{})
	require.False(t, res.IsError, res.Text)
	assert.True(t, strings.Contains(res.Text, root) || strings.Contains(res.Text, filepath.Base(root)), res.Text)
}

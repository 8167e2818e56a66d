package mcpstdio_test

import (
	"context"
	"encoding/json"
	"github.com/toolshelf/toolshelf/mcpconfig"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio/mcpstdiotest"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

func TestMain(m *testing.M) {
	mcpstdiotest.Main()
	os.Exit(m.Run())
}

// listFake lists the fake server in mode, bounded by a generous deadline
// (only the Silent mode ever reaches it).
func listFake(t *testing.T, mode string, opts *mcpstdio.Options, timeout time.Duration) (*mcpstdio.Listing, error) {
	t.Helper()
	argv, env := mcpstdiotest.Command(mode)
	var o mcpstdio.Options
	if opts != nil {
		o = *opts
	}
	o.Env = append(o.Env, env)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return mcpstdio.List(ctx, argv, &o)
}

// wantTools is what the client must return for mcpstdiotest.Pages: each
// tool's kept members (name, description, inputSchema, annotations), in the
// server's order, compacted.
func wantTools(t *testing.T) []string {
	var out []string
	for _, page := range mcpstdiotest.Pages() {
		var tools []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(page), &tools))
		for _, tool := range tools {
			ms, err := jsonx.Members(tool)
			require.NoError(t, err)
			var kept []jsonx.Member
			for _, m := range ms {
				switch m.Key {
				case "name", "description", "inputSchema", "annotations":
					kept = append(kept, m)
				}
			}
			out = append(out, string(jsonx.AppendObject(nil, kept)))
		}
	}
	return out
}

func TestListPaginatesAndAnswersTheServer(t *testing.T) {
	l, err := listFake(t, mcpstdiotest.Good, &mcpstdio.Options{ClientVersion: "1.0.0"}, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 3, l.Pages)
	assert.Equal(t, mcpstdio.ProtocolVersion, l.ProtocolVersion)
	assert.Equal(t, mcpstdiotest.ServerName, l.ServerName)
	assert.Equal(t, mcpstdiotest.ServerTitle, l.ServerTitle)
	assert.Equal(t, mcpstdiotest.ServerDescription, l.ServerDescription)
	assert.Equal(t, "1.2.3", l.ServerVersion)
	assert.Equal(t, mcpstdiotest.Instructions, l.Instructions)
	got := make([]string, len(l.Tools))
	for i, tool := range l.Tools {
		got[i] = string(tool)
	}
	assert.Equal(t, wantTools(t), got, "every page, in order, trimmed to the registry's members, bytes in the server's order")
}

func TestListingImportsKeepingSchemaKeyOrder(t *testing.T) {
	l, err := listFake(t, mcpstdiotest.Good, nil, time.Minute)
	require.NoError(t, err)
	c, err := registry.ParseCatalog(l.Catalog("", ""))
	require.NoError(t, err)
	group := mcpconfig.GroupName(mcpstdiotest.ServerName)
	assert.Equal(t, group, c.Server)
	assert.Equal(t, mcpstdiotest.Instructions, c.Description)
	reg := registry.New(nil)
	require.NoError(t, reg.Import(c))
	snap := reg.Snapshot()

	byName := map[string]json.RawMessage{}
	for _, page := range mcpstdiotest.Pages() {
		var tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		require.NoError(t, json.Unmarshal([]byte(page), &tools))
		for _, tl := range tools {
			byName[tl.Name] = tl.InputSchema
		}
	}
	require.Len(t, byName, 4)
	for name, schema := range byName {
		tool, ok := snap.Tool(toolname.MCPName(group, name))
		require.True(t, ok, name)
		want := jsonx.AppendCompact(nil, schema)
		assert.Equal(t, string(want), string(tool.RawSchema), "%s: the server's key order survives", name)
		assert.Equal(t, registry.DeferUnset, tool.DeferLoading, "%s: a server's own defer_loading is dropped", name)
		assert.Empty(t, tool.Tier, "%s: a server's own tier is dropped", name)
	}
	zeta, _ := snap.Tool(toolname.MCPName(group, "zeta_search"))
	require.NotNil(t, zeta.Annotations)
	require.NotNil(t, zeta.Annotations.ReadOnlyHint)
	assert.True(t, *zeta.Annotations.ReadOnlyHint)

	c, err = registry.ParseCatalog(l.Catalog("fake", "my description"))
	require.NoError(t, err)
	assert.Equal(t, "fake", c.Server)
	assert.Equal(t, "my description", c.Description)
}

func TestListAcceptsAnOlderRevision(t *testing.T) {
	l, err := listFake(t, mcpstdiotest.OldVersion, nil, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, "2024-11-05", l.ProtocolVersion)
	assert.True(t, mcpstdio.KnownVersion(l.ProtocolVersion))
	assert.Len(t, l.Tools, 4)
}

func TestListFailures(t *testing.T) {
	tests := []struct {
		mode    string
		opts    *mcpstdio.Options
		timeout time.Duration
		err     error
		want    []string
	}{
		{mcpstdiotest.ExitAtStart, nil, time.Minute, mcpstdio.ErrExited,
			[]string{"exited early: exit status 3, before answering initialize", "stderr: fake: loading config | fake: fatal: config /nonexistent/fake.json not found"}},
		{mcpstdiotest.ExitAfterInit, nil, time.Minute, mcpstdio.ErrExited,
			[]string{"exited early: exit status 1, before answering tools/list", "stderr: fake: crashed while listing tools"}},
		{mcpstdiotest.Silent, nil, 300 * time.Millisecond, mcpstdio.ErrTimeout,
			[]string{"waiting for the initialize result", "context deadline exceeded"}},
		{mcpstdiotest.Garbage, nil, time.Minute, mcpstdio.ErrProtocol,
			[]string{"not a JSON-RPC message", "Server listening on stdio"}},
		{mcpstdiotest.RPCError, nil, time.Minute, mcpstdio.ErrRPC,
			[]string{"answered tools/list with error -32601: Method not found", "declares no tools capability"}},
		{mcpstdiotest.Endless, &mcpstdio.Options{MaxPages: 5}, time.Minute, mcpstdio.ErrProtocol,
			[]string{"still has a nextCursor after 5 pages"}},
		{mcpstdiotest.RepeatCursor, nil, time.Minute, mcpstdio.ErrProtocol,
			[]string{`nextCursor "again" twice`}},
		{mcpstdiotest.NoVersion, nil, time.Minute, mcpstdio.ErrProtocol,
			[]string{"no protocolVersion"}},
		{mcpstdiotest.WrongID, nil, time.Minute, mcpstdio.ErrProtocol,
			[]string{"answered request id 99, which was never sent"}},
		{mcpstdiotest.Good, &mcpstdio.Options{MaxMessage: 200}, time.Minute, mcpstdio.ErrProtocol,
			[]string{"longer than 200 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			l, err := listFake(t, tt.mode, tt.opts, tt.timeout)
			require.Error(t, err)
			assert.Nil(t, l)
			assert.ErrorIs(t, err, tt.err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestListStartErrors(t *testing.T) {
	ctx := context.Background()
	_, err := mcpstdio.List(ctx, nil, nil)
	assert.ErrorIs(t, err, mcpstdio.ErrCommand)
	_, err = mcpstdio.List(ctx, []string{"toolshelf-no-such-mcp-server"}, nil)
	assert.ErrorIs(t, err, mcpstdio.ErrStart)
	assert.Contains(t, err.Error(), `"toolshelf-no-such-mcp-server": executable file not found`)
	_, err = mcpstdio.List(ctx, []string{filepath.Join(t.TempDir(), "missing")}, nil)
	assert.ErrorIs(t, err, mcpstdio.ErrStart)
}

// TestListKillsTheProcessGroup checks that what the server started is gone
// when List returns, even though it held the server's stdout open.
func TestListKillsTheProcessGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	l, err := listFake(t, mcpstdiotest.Orphan, &mcpstdio.Options{Env: []string{mcpstdiotest.PidFileVar + "=" + pidFile}}, time.Minute)
	require.NoError(t, err)
	assert.Len(t, l.Tools, 4)
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(b))
	require.NoError(t, err)
	// SIGKILL was sent before List returned; the kernel tears the process
	// down, and its new parent reaps it, asynchronously.
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.False(t, alive(pid), "the server's descendant %d was killed with its group", pid)
}

// alive reports whether pid runs (a zombie has exited and does not count).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

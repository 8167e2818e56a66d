package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
	"github.com/toolshelf/toolshelf/registry"
)

// serversDir is testdata/mcp-servers from this package.
const serversDir = "../../../testdata/mcp-servers"

// e2e is one end-to-end setup: the gateway binary, and the files of a host
// with four real npm servers behind it (everything and filesystem over
// stdio, memory over stdio, everything again over streamable HTTP — late:
// the test starts it after the gateway) and one that fails to start (a
// package that is not installed, as after an npm 404).
type e2e struct {
	bin, dir, config, rules, pins string
	node, everything, fsServer    string
	inspector                     string
	latePort                      int
}

func newE2E(t *testing.T) *e2e {
	t.Helper()
	ev := longtest.NPMServer(t, serversDir, "mcp-server-everything")
	fs := longtest.NPMServer(t, serversDir, "mcp-server-filesystem")
	mem := longtest.NPMServer(t, serversDir, "mcp-server-memory")
	insp := longtest.NPMServer(t, serversDir, "mcp-inspector-cli")
	// The CLI's bin is a launcher of the whole inspector; its CLI mode is
	// build/index.js of the same package.
	cli, err := filepath.Abs(filepath.Join(filepath.Dir(insp[1]), "..", "@modelcontextprotocol", "inspector-cli", "build", "index.js"))
	require.NoError(t, err)
	e := &e2e{dir: t.TempDir(), node: ev[0], everything: ev[1], fsServer: fs[1], inspector: cli}
	e.bin = filepath.Join(e.dir, "toolshelf-gateway")
	build := exec.Command("go", "build", "-o", e.bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	root := filepath.Join(e.dir, "root")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the gateway\n"), 0o644))
	e.latePort = freePort(t)
	missing, _ := filepath.Abs(filepath.Join(serversDir, "node_modules", "@modelcontextprotocol", "server-not-installed", "dist", "index.js"))
	cfg := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "${NODE}", "args": []string{ev[1], "stdio"}},
		"fs":         map[string]any{"command": "${NODE}", "args": []string{fs[1], root}},
		"memory":     map[string]any{"command": "${NODE}", "args": []string{mem[1]}, "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(e.dir, "memory.jsonl")}},
		"late":       map[string]any{"type": "http", "url": fmt.Sprintf("http://127.0.0.1:%d/mcp", e.latePort)},
		"broken":     map[string]any{"command": "${NODE}", "args": []string{missing}},
	}}
	b, err := json.Marshal(cfg)
	require.NoError(t, err)
	e.config = filepath.Join(e.dir, "mcp.json")
	require.NoError(t, os.WriteFile(e.config, b, 0o644))
	e.rules = filepath.Join(e.dir, "rules")
	require.NoError(t, os.WriteFile(e.rules, []byte(`# the e2e host's rules
Deny(mcp__fs__write_file)
Ask(mcp__everything__get-sum)
NoDefer(mcp__everything__echo)
NoDefer(mcp__everything__get-sum)

[profile files]
Servers(fs)
`), 0o644))
	e.pins = filepath.Join(e.dir, "pins.json")
	return e
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// gatewayCmd returns the gateway's command line with the e2e files.
func (e *e2e) gatewayCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, append(args, "--mcp-config", e.config, "--rules", e.rules, "--pins", e.pins)...)
	cmd.Env = append(os.Environ(), "NODE="+e.node)
	return cmd
}

// startLate starts the everything server over streamable HTTP on the port
// the config names; it is stopped at the end of the test.
func (e *e2e) startLate(t *testing.T) {
	cmd := exec.Command(e.node, e.everything, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", e.latePort))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
}

// stalePin writes a pins file whose pin of get-env is an earlier definition
// of it (another description): the server's tool changed since it was
// pinned, as after an upgrade that rewrote it.
func (e *e2e) stalePin(t *testing.T) {
	old := registry.Tool{Name: "mcp__everything__get-env", Description: "Returns the environment variables (an earlier version).", RawSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
	reg := registry.New(nil)
	require.NoError(t, reg.Register(old))
	t0, _ := reg.Snapshot().Tool("mcp__everything__get-env")
	f := pinFile{Pinned: map[string]pin{"mcp__everything__get-env": pinOf(t0)}, Quarantined: map[string]quarantine{}}
	require.NoError(t, writePinFile(e.pins, f))
}

// TestE2EGoSDKClient runs the gateway as an MCP host does (over stdio) and
// drives it with the go-sdk client: the constant list, the index, search,
// load, call, a Deny, an Ask answered through elicitation, a server that
// fails to start, a late streamable HTTP server found in the same session,
// and a quarantined change approved with the approve command while the
// gateway runs.
func TestE2EGoSDKClient(t *testing.T) {
	e := newE2E(t)
	e.stalePin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var asked []string
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	gw := e.gatewayCmd("serve", "--wait", "60s")
	var stderr strings.Builder
	gw.Stderr = &stderr
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: gw}, nil)
	require.NoError(t, err)
	defer func() {
		cs.Close()
		t.Logf("gateway stderr:\n%s", clip(stderr.String(), 4000))
	}()

	names, res := listNames(t, cs)
	assert.Equal(t, []string{"defer_execute", "mcp__everything__echo", "mcp__everything__get-sum", "tool_search"}, names, "two tools and the resident ones")
	assert.Greater(t, res.TTLMs, 0)
	idx := searchDescription(t, cs)
	for _, want := range []string{"mcp__everything:", "mcp__fs:", "mcp__memory:", "list_directory", "read_graph", "get-tiny-image"} {
		assert.Contains(t, idx, want)
	}
	assert.NotContains(t, idx, "write_file", "denied")
	assert.NotContains(t, idx, "get-env", "quarantined")
	assert.NotContains(t, idx, "mcp__late", "not started yet")
	why := cs.InitializeResult().Instructions
	assert.Contains(t, why, "Server broken is unavailable")
	assert.Contains(t, why, "Cannot find module", "the server's stderr")
	assert.Contains(t, why, "exit status 1")

	text, isErr := call(t, cs, "mcp__everything__echo", map[string]any{"message": "hi"})
	require.False(t, isErr, text)
	assert.Equal(t, "Echo: hi", text)

	text, _ = call(t, cs, "tool_search", map[string]any{"queries": []string{"list the files of a directory"}})
	assert.Contains(t, text, "mcp__fs__list_directory")
	root := filepath.Join(e.dir, "root")
	if !strings.Contains(text, `"path"`) {
		call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__fs__list_directory"}})
	}
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__fs__list_directory", "params": map[string]any{"path": root}})
	require.False(t, isErr, text)
	assert.Contains(t, text, "hello.txt")

	// Deny: not found, not called.
	text, _ = call(t, cs, "tool_search", map[string]any{"queries": []string{"write a file"}})
	assert.NotContains(t, text, "mcp__fs__write_file")
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__fs__write_file", "params": map[string]any{"path": filepath.Join(root, "x.txt"), "content": "x"}})
	assert.True(t, isErr, text)
	assert.NoFileExists(t, filepath.Join(root, "x.txt"))

	// Ask: the user says yes through elicitation.
	text, isErr = call(t, cs, "mcp__everything__get-sum", map[string]any{"a": 2, "b": 3})
	require.False(t, isErr, text)
	assert.Equal(t, "The sum of 2 and 3 is 5.", text)
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], "mcp__everything__get-sum")

	// Quarantine: get-env is held back; approve it with the command.
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__everything__get-env", "params": map[string]any{}})
	assert.True(t, isErr, text)
	out, err := e.gatewayCmd("explain", "--wait", "60s", "mcp__everything__get-env").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "quarantined because its definition changed since it was pinned")
	out, err = exec.Command(e.bin, "approve", "--pins", e.pins, "mcp__everything__get-env").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "approved mcp__everything__get-env\n", string(out))
	var loaded string
	eventually(t, "the approved tool to load", func() bool {
		loaded, _ = call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__everything__get-env"}})
		return strings.Contains(loaded, "environment variables") && !strings.Contains(loaded, "earlier version")
	})
	t.Logf("loaded: %s", loaded)
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__everything__get-env", "params": map[string]any{}})
	require.False(t, isErr, text)
	assert.Contains(t, text, "PATH")

	// Late: the HTTP server starts now; the same session finds and calls it.
	e.startLate(t)
	deadline := time.Now().Add(90 * time.Second)
	for {
		text, _ = call(t, cs, "tool_search", map[string]any{"tool_names": []string{"mcp__late__echo"}})
		if strings.Contains(text, "Message to echo") || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	require.Contains(t, text, "Message to echo", "the late server's echo loads")
	text, isErr = call(t, cs, "defer_execute", map[string]any{"tool_name": "mcp__late__echo", "params": map[string]any{"message": "late"}})
	require.False(t, isErr, text)
	assert.Equal(t, "Echo: late", text)
	names2, _ := listNames(t, cs)
	assert.Equal(t, names, names2, "the list never changes")

	out, err = e.gatewayCmd("explain", "--wait", "60s", "mcp__fs__write_file").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "Deny(mcp__fs__write_file)")
}

// inspect runs the MCP Inspector's CLI (an npm MCP client nobody here
// wrote) against url with args, and returns its JSON output.
func (e *e2e) inspect(t *testing.T, url string, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(e.node, append([]string{e.inspector, url, "--transport", "http"}, args...)...)
	// The CLI reads its own package.json through a path relative to the
	// working directory: run it where node_modules/.. is a package.
	cmd.Dir = filepath.Join(serversDir, "node_modules")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s\n%s", out, stderr.String())
	var v map[string]any
	require.NoError(t, json.Unmarshal(out, &v), string(out))
	return v
}

func inspectText(v map[string]any) (string, bool) {
	var b strings.Builder
	content, _ := v["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	isErr, _ := v["isError"].(bool)
	return b.String(), isErr
}

// TestE2EInspectorHTTP serves streamable HTTP and drives the gateway with
// the MCP Inspector's CLI: the constant list, search, a call, a Deny, an
// Ask refused with a text that says what to do (the CLI does not support
// elicitation), and the profile "files" at /mcp/files.
func TestE2EInspectorHTTP(t *testing.T) {
	e := newE2E(t)
	port := freePort(t)
	gw := e.gatewayCmd("serve", "--wait", "60s", "--http", fmt.Sprintf("127.0.0.1:%d", port))
	var stderr strings.Builder
	gw.Stderr = &stderr
	require.NoError(t, gw.Start())
	defer func() {
		_ = gw.Process.Signal(os.Interrupt)
		_ = gw.Wait()
		t.Logf("gateway stderr:\n%s", clip(stderr.String(), 4000))
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	eventually(t, "the gateway to listen", func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	list := e.inspect(t, base, "--method", "tools/list")
	var names []string
	for _, tl := range list["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	assert.ElementsMatch(t, []string{"defer_execute", "mcp__everything__echo", "mcp__everything__get-sum", "tool_search"}, names)

	text, isErr := inspectText(e.inspect(t, base, "--method", "tools/call", "--tool-name", "tool_search", "--tool-arg", `queries=["list the files of a directory"]`))
	require.False(t, isErr, text)
	assert.Contains(t, text, "mcp__fs__list_directory")

	text, isErr = inspectText(e.inspect(t, base, "--method", "tools/call", "--tool-name", "mcp__everything__echo", "--tool-arg", "message=inspected"))
	require.False(t, isErr, text)
	assert.Equal(t, "Echo: inspected", text)

	text, isErr = inspectText(e.inspect(t, base, "--method", "tools/call", "--tool-name", "defer_execute", "--tool-arg", "tool_name=mcp__fs__write_file", `params={"path":"/tmp/x","content":"x"}`))
	assert.True(t, isErr, text)

	// A fresh session has loaded nothing: defer_execute of a deferred tool
	// answers with its schema (load before call) and runs nothing.
	text, isErr = inspectText(e.inspect(t, base, "--method", "tools/call", "--tool-name", "defer_execute", "--tool-arg", "tool_name=mcp__fs__list_directory", `params={"path":"/"}`))
	assert.True(t, isErr, text)
	assert.Contains(t, text, "its schema had not been loaded")

	// Ask: the CLI cannot be asked (no elicitation): refused, and told why.
	text, isErr = inspectText(e.inspect(t, base, "--method", "tools/call", "--tool-name", "mcp__everything__get-sum", "--tool-arg", "a=2", "b=3"))
	assert.True(t, isErr, text)
	assert.Contains(t, text, "does not support elicitation")
	assert.NotContains(t, text, "The sum")

	files := e.inspect(t, base+"/files", "--method", "tools/list")
	names = names[:0]
	var desc string
	for _, tl := range files["tools"].([]any) {
		m := tl.(map[string]any)
		names = append(names, m["name"].(string))
		if m["name"] == "tool_search" {
			desc = m["description"].(string)
		}
	}
	assert.ElementsMatch(t, []string{"defer_execute", "tool_search"}, names, "the profile serves fs only")
	assert.Contains(t, desc, "mcp__fs:")
	assert.NotContains(t, desc, "mcp__everything")
	text, _ = inspectText(e.inspect(t, base+"/files", "--method", "tools/call", "--tool-name", "tool_search", "--tool-arg", `queries=["echo a message"]`))
	assert.NotContains(t, text, "mcp__everything__echo")
}

package main

import (
	"encoding/json"
	"github.com/toolshelf/toolshelf/mcpconfig"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio/mcpstdiotest"
	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
)

func TestMain(m *testing.M) {
	mcpstdiotest.Main() // the test binary doubles as a fake MCP server
	os.Exit(m.Run())
}

// fakeServer returns the --mcp-stdio line that starts the fake server in
// mode (the mode travels in the environment, which the server inherits).
func fakeServer(t *testing.T, mode string) string {
	argv, env := mcpstdiotest.Command(mode)
	k, v, _ := strings.Cut(env, "=")
	t.Setenv(k, v)
	return shellQuote(argv...)
}

func shellQuote(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// fakeCatalog writes the fake server's tools as the catalog file a
// --catalog run would read: the same tools, group and description.
func fakeCatalog(t *testing.T, group string) string {
	var tools []json.RawMessage
	for _, p := range mcpstdiotest.Pages() {
		var page []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(p), &page))
		tools = append(tools, page...)
	}
	b, err := json.Marshal(map[string]any{"server": group, "description": mcpstdiotest.Instructions, "tools": tools})
	require.NoError(t, err)
	return writeFile(t, "fake.tools.json", string(b))
}

func budgetMap(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m), out)
	return m
}

// TestBudgetMCPStdioIsTheCatalogAccount checks that a live server's account
// is the account of the same tools read from a catalog file with every
// server tool deferred: same figures, key for key.
func TestBudgetMCPStdioIsTheCatalogAccount(t *testing.T) {
	line := fakeServer(t, mcpstdiotest.Good)
	code, out, errOut := runCLI("budget", "--mcp-stdio", line, "--json", "--window", "100000")
	require.Equal(t, exitOK, code, errOut)
	live := budgetMap(t, out)

	group := mcpconfig.GroupName(mcpstdiotest.ServerName)
	rules := writeFile(t, "rules.txt", "Defer(mcp__*)\n")
	code, out, errOut = runCLI("budget", "--catalog", fakeCatalog(t, group), "--rules", rules, "--json", "--window", "100000")
	require.Equal(t, exitOK, code, errOut)
	file := budgetMap(t, out)

	srv, ok := live["mcp_server"].(map[string]any)
	require.True(t, ok, "mcp_server is reported")
	assert.Equal(t, group, srv["name"])
	assert.Equal(t, mcpstdiotest.ServerName, srv["server_name"])
	assert.Equal(t, mcpstdiotest.ServerTitle, srv["server_title"])
	assert.Equal(t, "1.2.3", srv["server_version"])
	assert.Equal(t, mcpstdio.ProtocolVersion, srv["protocol_version"])
	assert.Equal(t, mcpstdiotest.Instructions, srv["description"])
	assert.EqualValues(t, 4, srv["tools"])
	assert.EqualValues(t, 3, srv["pages"])
	assert.Equal(t, []any{}, live["catalogs"])
	assert.EqualValues(t, 4, live["deferred_count"], "a live server is deferred by default")

	delete(live, "mcp_server")
	delete(live, "mcp_servers")
	delete(live, "catalogs")
	delete(file, "catalogs")
	assert.Equal(t, file, live)
}

func TestBudgetMCPStdioFlags(t *testing.T) {
	line := fakeServer(t, mcpstdiotest.Good)

	code, out, errOut := runCLI("budget", "--mcp-stdio", line, "--name", "acme", "--json")
	require.Equal(t, exitOK, code, errOut)
	m := budgetMap(t, out)
	assert.Equal(t, "acme", m["mcp_server"].(map[string]any)["name"])
	assert.True(t, strings.HasPrefix(m["longest_name"].(string), "mcp__acme__"), m["longest_name"])

	rules := writeFile(t, "rules.txt", "NoDefer(mcp__acme__zeta_search)\n")
	code, out, errOut = runCLI("budget", "--mcp-stdio", line, "--name", "acme", "--rules", rules, "--json")
	require.Equal(t, exitOK, code, errOut)
	m = budgetMap(t, out)
	assert.EqualValues(t, 3, m["deferred_count"], "--rules keeps a tool resident")
	assert.EqualValues(t, 1, m["resident_count"])

	code, out, errOut = runCLI("budget", "--catalog", harness, "--mcp-stdio", line, "--json", "--encoding", "estimate")
	require.Equal(t, exitOK, code, errOut)
	m = budgetMap(t, out)
	assert.EqualValues(t, 58+4, m["tools_total"], "the catalog's tools and the server's")
	assert.EqualValues(t, 23+4, m["deferred_count"])

	code, out, errOut = runCLI("budget", "--mcp-stdio", line, "--window", "200000")
	require.Equal(t, exitOK, code, errOut)
	first, _, _ := strings.Cut(out, "\n")
	assert.Equal(t, "MCP server "+mcpconfig.GroupName(mcpstdiotest.ServerName)+": "+mcpstdiotest.ServerName+" 1.2.3, protocol "+mcpstdio.ProtocolVersion+", 4 tools in 3 pages, deferred unless --rules keep them", first)
	assert.Contains(t, out, "deferrable                  4 tools")
	assert.Contains(t, out, "/ 200,000 tokens")
}

func TestBudgetMCPStdioErrors(t *testing.T) {
	dup := writeFile(t, "dup.tools.json", `{"server":"dup","tools":[{"name":"x","inputSchema":{"type":"object"}}]}`)
	tests := []struct {
		name string
		mode string // fake server mode; "" runs no server
		args []string
		want []string
	}{
		{"exits early", mcpstdiotest.ExitAtStart, nil,
			[]string{"the server exited early: exit status 3, before answering initialize", "stderr: fake: loading config | fake: fatal: config /nonexistent/fake.json not found"}},
		{"timeout", mcpstdiotest.Silent, []string{"--timeout", "300ms"},
			[]string{"timed out waiting for the initialize result", "(--timeout 300ms;"}},
		{"garbage", mcpstdiotest.Garbage, nil,
			[]string{"bad JSON-RPC from the server", `not a JSON-RPC message: "Server listening on stdio, welcome!"`}},
		{"rpc error", mcpstdiotest.RPCError, nil,
			[]string{"answered tools/list with error -32601: Method not found"}},
		{"duplicate group", mcpstdiotest.Good, []string{"--catalog", dup, "--name", "dup"},
			[]string{`already holds the group "dup": pass --name`}},
		{"bad name", "", []string{"--mcp-stdio", "node s.js", "--name", "a__b"},
			[]string{"--name:", `"a__b"`}},
		{"not found", "", []string{"--mcp-stdio", "toolshelf-no-such-server --stdio"},
			[]string{`--mcp-stdio "toolshelf-no-such-server --stdio": cannot start the server:`, "executable file not found"}},
		{"env assignment", "", []string{"--mcp-stdio", "DEBUG=1 node s.js"},
			[]string{"cannot start the server", "env NAME=value COMMAND"}},
		{"unterminated quote", "", []string{"--mcp-stdio", "node 's.js"},
			[]string{"--mcp-stdio: bad command line", "unterminated ' quote"}},
		{"shell syntax", "", []string{"--mcp-stdio", "cd /srv && node s.js"},
			[]string{"& is shell syntax", "sh -c"}},
		{"name without server", "", []string{"--catalog", harness, "--name", "x"},
			[]string{"--name and --timeout go with --mcp-stdio"}},
		{"bad timeout", "", []string{"--mcp-stdio", "node s.js", "--timeout", "0s"},
			[]string{"--timeout 0s: must be positive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"budget"}, tt.args...)
			if tt.mode != "" {
				args = append(args, "--mcp-stdio", fakeServer(t, tt.mode))
			}
			code, out, errOut := runCLI(args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out, "nothing on stdout")
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %s", errOut)
			assert.True(t, strings.HasPrefix(errOut, "toolshelf budget: "), errOut)
			for _, w := range tt.want {
				assert.Contains(t, errOut, w)
			}
		})
	}
}

// TestBudgetEverythingServer runs the command against the real reference
// server (testdata/mcp-servers; CI installs it with npm ci).
func TestBudgetEverythingServer(t *testing.T) {
	argv := longtest.NPMServer(t, "../../testdata/mcp-servers", "mcp-server-everything", "stdio")
	code, out, errOut := runCLI("budget", "--mcp-stdio", shellQuote(argv...), "--json", "--timeout", "90s")
	require.Equal(t, exitOK, code, errOut)
	m := budgetMap(t, out)
	srv := m["mcp_server"].(map[string]any)
	assert.Equal(t, "everything", srv["name"])
	assert.Equal(t, "mcp-servers/everything", srv["server_name"])
	total := m["tools_total"].(float64)
	assert.Positive(t, total)
	assert.Equal(t, total, m["deferred_count"])
	assert.Positive(t, m["net_saving_chars"].(float64))
	assert.Less(t, m["index_chars"].(float64), m["deferred_chars"].(float64))
}

// TestBudgetTwoMCPStdio: two --mcp-stdio servers are both started and
// measured (each --name names the server of its rank); before, the last
// flag replaced the first, silently.
func TestBudgetTwoMCPStdio(t *testing.T) {
	line := fakeServer(t, mcpstdiotest.Good)
	code, out, errOut := runCLI("budget", "--mcp-stdio", line, "--name", "one", "--mcp-stdio", line, "--name", "two", "--json")
	require.Equal(t, exitOK, code, errOut)
	m := budgetMap(t, out)
	servers, ok := m["mcp_servers"].([]any)
	require.True(t, ok, out)
	require.Len(t, servers, 2)
	assert.Equal(t, "one", servers[0].(map[string]any)["name"])
	assert.Equal(t, "two", servers[1].(map[string]any)["name"])
	assert.EqualValues(t, 8, m["deferred_count"], "both servers' tools are in the account")

	code, out, errOut = runCLI("budget", "--mcp-stdio", line, "--name", "one", "--mcp-stdio", line, "--name", "two")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "MCP server one: ")
	assert.Contains(t, out, "MCP server two: ")

	code, _, errOut = runCLI("budget", "--mcp-stdio", line, "--mcp-stdio", line)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "an earlier --mcp-stdio already holds the group")
}

// TestBudgetMCPConfig: --mcp-config reads an mcpServers file, starts its
// stdio servers (command, args, env with ${VAR:-default}) under their
// entries' names, measures them, and says which entries it skipped.
func TestBudgetMCPConfig(t *testing.T) {
	argv, env := mcpstdiotest.Command(mcpstdiotest.Good)
	k, v, _ := strings.Cut(env, "=")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fake":  map[string]any{"command": argv[0], "args": argv[1:], "env": map[string]string{k: "${TOOLSHELF_TEST_UNSET:-" + v + "}"}},
		"other": map[string]any{"command": argv[0], "args": argv[1:], "env": map[string]string{k: v}},
		"web":   map[string]any{"type": "http", "url": "https://example.com/mcp"},
		"off":   map[string]any{"command": "nothing", "disabled": true},
	}})
	require.NoError(t, err)
	path := writeFile(t, "mcp.json", string(cfg))
	code, out, errOut := runCLI("budget", "--mcp-config", path, "--json")
	require.Equal(t, exitOK, code, errOut)
	m := budgetMap(t, out)
	servers := m["mcp_servers"].([]any)
	require.Len(t, servers, 2)
	assert.Equal(t, "fake", servers[0].(map[string]any)["name"])
	assert.Equal(t, "other", servers[1].(map[string]any)["name"])
	assert.EqualValues(t, 8, m["deferred_count"])
	assert.Equal(t, []any{"off: disabled", "web: an HTTP server, which the command-line tool does not reach (integration/mcp.Manager does)"}, m["mcp_skipped"])

	code, _, errOut = runCLI("budget", "--mcp-config", fsCatalog)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, `no "mcpServers" object (keys: description, license, server, source, tools); a tools list goes to --catalog`)
}

// TestMCPConfigRefusesDuplicateKeys: a key given twice at any depth — a
// server name, "command", an env variable — is refused naming it, as
// integration/mcp.ParseConfig refuses it (which one a reader keeps is not
// agreed on: a reviewer may read another command than the one that runs);
// a file over the bound is refused before it is read.
func TestMCPConfigRefusesDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"server", `{"mcpServers":{"a":{"command":"true"},"a":{"command":"sh"}}}`, `key "a" given twice in one object (at /mcpServers)`},
		{"command", `{"mcpServers":{"a":{"command":"true","args":[],"command":"sh"}}}`, `key "command" given twice in one object (at /mcpServers/a)`},
		{"escaped", `{"mcpServers":{"a":{"command":"true","comm\u0061nd":"sh"}}}`, `key "command" given twice`},
		{"env", `{"mcpServers":{"a":{"command":"true","env":{"X":"1","X":"2"}}}}`, `key "X" given twice in one object (at /mcpServers/a/env)`},
		// Issue 43: encoding/json matched "Command" to the command field
		// (last wins), so sh ran where a reviewer read true.
		{"case variant", `{"mcpServers":{"a":{"command":"true","Command":"sh","args":["-c","echo ran"]}}}`,
			`keys "command" and "Command" differ only in case in one object (at /mcpServers/a): at line 1 column 21 and at line 1 column 38`},
		{"lone case variant", `{"mcpServers":{"a":{"Command":"sh","args":["-c","echo ran"]}}}`, `unknown key "Command": keys are case-sensitive, write "command"`},
		{"server name case variant", `{"mcpServers":{"a":{"command":"true"},"A":{"command":"sh"}}}`, `keys "a" and "A" differ only in case`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI("budget", "--mcp-config", writeFile(t, "mcp.json", tc.file))
			assert.NotEqual(t, exitOK, code)
			assert.Contains(t, errOut, tc.want)
		})
	}
	code, _, errOut := runCLI("budget", "--mcp-config", writeFile(t, "big.json", `{"mcpServers":{}}`+strings.Repeat(" ", 1<<20)))
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, "the limit is 1048576")
}

// TestBudgetMCPConfigNPMServers runs --mcp-config on an mcpServers file of
// the two real npm servers (testdata/mcp-servers; CI installs them with
// npm ci): both are started, listed and measured under their entries'
// names. A long run.
func TestBudgetMCPConfigNPMServers(t *testing.T) {
	everything := longtest.NPMServer(t, "../../testdata/mcp-servers", "mcp-server-everything", "stdio")
	filesystem := longtest.NPMServer(t, "../../testdata/mcp-servers", "mcp-server-filesystem", t.TempDir())
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": everything[0], "args": everything[1:]},
		"filesystem": map[string]any{"command": filesystem[0], "args": filesystem[1:]},
	}})
	require.NoError(t, err)
	code, out, errOut := runCLI("budget", "--mcp-config", writeFile(t, "mcp.json", string(cfg)), "--json", "--timeout", "90s")
	require.Equal(t, exitOK, code, errOut)
	m := budgetMap(t, out)
	servers := m["mcp_servers"].([]any)
	require.Len(t, servers, 2)
	assert.Equal(t, "everything", servers[0].(map[string]any)["name"])
	assert.Equal(t, "filesystem", servers[1].(map[string]any)["name"])
	total := servers[0].(map[string]any)["tools"].(float64) + servers[1].(map[string]any)["tools"].(float64)
	assert.Equal(t, total, m["deferred_count"], "every tool of both servers is in the account, deferred")
	assert.Positive(t, m["net_saving_chars"].(float64))
}

// TestRequestSearchMCPConfig: request and search read an mcpServers file
// too: the fake server's tools are in the request (deferred, in the
// index) and found by search.
func TestRequestSearchMCPConfig(t *testing.T) {
	argv, env := mcpstdiotest.Command(mcpstdiotest.Good)
	k, v, _ := strings.Cut(env, "=")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fake": map[string]any{"command": argv[0], "args": argv[1:], "env": map[string]string{k: v}}}})
	require.NoError(t, err)
	path := writeFile(t, "mcp.json", string(cfg))
	code, out, errOut := runCLI("request", "--mcp-config", path, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--user", "hi")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "zeta_search", "the server's tool is in the index")
	code, out, errOut = runCLI("search", "--mcp-config", path, "zeta")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "mcp__fake__zeta_search")
}

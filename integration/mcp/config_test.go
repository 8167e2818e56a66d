package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

func env(vars map[string]string) *ConfigOptions {
	return &ConfigOptions{Getenv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
}

// TestParseConfig reads the shapes Claude Desktop (stdio), Claude Code
// (type, ${VAR} expansion) and Cursor (url with headers) write.
func TestParseConfig(t *testing.T) {
	file := `{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "${TOKEN}", "A": "1"}},
		"web": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${KEY:-none}"}},
		"cursor-style": {"url": "http://localhost:8080/mcp"},
		"off": {"command": "x", "disabled": true},
		"cline": {"command": "node", "args": ["s.js"], "alwaysAllow": ["a"], "timeout": 60}
	}, "globalShortcut": ""}`
	srvs, err := ParseConfig([]byte(file), env(map[string]string{"TOKEN": "t0k"}))
	require.NoError(t, err)
	var names []string
	for _, s := range srvs {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"cline", "cursor-style", "github", "web"}, names, "sorted, the disabled one left out")
	gh := srvs[2]
	assert.Equal(t, []string{"npx", "-y", "@modelcontextprotocol/server-github"}, gh.Command)
	assert.Equal(t, []string{"A=1", "GITHUB_TOKEN=t0k"}, gh.Env)
	assert.Equal(t, "https://mcp.example.com/mcp", srvs[3].URL)
	require.NotNil(t, srvs[3].HTTPClient)
	assert.Nil(t, srvs[1].HTTPClient, "no headers: the default client")
}

// TestParseConfigErrors: every refusal wraps ErrConfig and names the
// server and the field.
func TestParseConfigErrors(t *testing.T) {
	cases := map[string]struct{ file, want string }{
		"not json":        {`{`, "not a JSON object"},
		"no mcpServers":   {`{"servers":{}}`, `no "mcpServers"`},
		"servers a list":  {`{"mcpServers":[]}`, "not an object of servers"},
		"entry a string":  {`{"mcpServers":{"a":"npx"}}`, `mcpServers["a"]: want an object`},
		"neither":         {`{"mcpServers":{"a":{}}}`, "neither command"},
		"both":            {`{"mcpServers":{"a":{"command":"x","url":"http://h/"}}}`, "both command and url"},
		"sse":             {`{"mcpServers":{"a":{"type":"sse","url":"http://h/sse"}}}`, "legacy HTTP+SSE"},
		"unknown key":     {`{"mcpServers":{"a":{"command":"x","comand":"y"}}}`, `unknown key "comand"`},
		"bad url":         {`{"mcpServers":{"a":{"url":"ftp://h/"}}}`, "http or https"},
		"headers stdio":   {`{"mcpServers":{"a":{"command":"x","headers":{"a":"b"}}}}`, "headers belong"},
		"env http":        {`{"mcpServers":{"a":{"url":"http://h/","env":{"a":"b"}}}}`, "belong to a stdio"},
		"bad header":      {`{"mcpServers":{"a":{"url":"http://h/","headers":{"X":"a\r\nb"}}}}`, `header "X"`},
		"unset var":       {`{"mcpServers":{"a":{"command":"x","env":{"K":"${NOPE}"}}}}`, "${NOPE} is not set"},
		"bad name":        {`{"mcpServers":{"my.server":{"command":"x"}}}`, `server name "my.server"`},
		"args not list":   {`{"mcpServers":{"a":{"command":"x","args":"-y"}}}`, `mcpServers["a"]`},
		"type mismatch":   {`{"mcpServers":{"a":{"type":"http","command":"x"}}}`, `type "http" with a command`},
		"bad env key":     {`{"mcpServers":{"a":{"command":"x","env":{"A=B":"1"}}}}`, "env key"},
		"builtin name":    {`{"mcpServers":{"builtin":{"command":"x"}}}`, "server name"},
		"too big":         {`{"mcpServers":{"a":{"command":"` + strings.Repeat("x", 1<<20) + `"}}}`, "the limit is"},
		"null servers":    {`{"mcpServers":null}`, "not an object of servers"},
		"args wrong type": {`{"mcpServers":{"a":{"command":"x","args":[1]}}}`, `mcpServers["a"]`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.file), env(nil))
			require.ErrorIs(t, err, ErrConfig)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err := LoadConfig(filepath.Join(t.TempDir(), "missing.json"), nil)
	require.ErrorIs(t, err, ErrConfig)
}

// TestConfigHTTPHeaders: an HTTP entry's headers reach the server on every
// request, and its tools reach the registry.
func TestConfigHTTPHeaders(t *testing.T) {
	ctx := testCtx(t)
	srv := newSDKServer(nil, "echo")
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var mu sync.Mutex
	var auth []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	file := `{"mcpServers":{"web":{"type":"http","url":"` + hs.URL + `","headers":{"Authorization":"Bearer ${KEY}"}}}}`
	srvs, err := ParseConfig([]byte(file), env(map[string]string{"KEY": "s3cret"}))
	require.NoError(t, err)
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	require.NoError(t, m.Connect(ctx, srvs...))
	res := call(t, ctx, reg, "mcp__web__echo", `{"message":"hi"}`)
	assert.Equal(t, `echo: {"message":"hi"}`, res.Text)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, auth)
	for _, a := range auth {
		assert.Equal(t, "Bearer s3cret", a)
	}
}

// TestConfigNPMServers: an mcpServers file naming the npm servers CI
// installs (testdata/mcp-servers) starts a Manager whose tools reach a
// session: they are in its tool_search index, found by a search, and
// called through the session's dispatcher. A long run.
func TestConfigNPMServers(t *testing.T) {
	everything := npmServer(t, "mcp-server-everything", "stdio")
	fsArgv := npmServer(t, "mcp-server-filesystem")
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("from the config\n"), 0o644))
	cfg := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": everything[0], "args": everything[1:]},
		"fs":         map[string]any{"command": fsArgv[0], "args": append(fsArgv[1:], "${ROOT}"), "env": map[string]string{"NODE_NO_WARNINGS": "1"}},
	}}
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	srvs, err := LoadConfig(path, env(map[string]string{"ROOT": root}))
	require.NoError(t, err)
	require.Len(t, srvs, 2)

	ctx := e2eCtx(t)
	reg := registry.New(nil)
	m := newManager(t, reg, nil)
	require.NoError(t, m.Connect(ctx, srvs...))
	assert.Empty(t, m.Pending())
	d, err := execute.New(nil)
	require.NoError(t, err)

	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(), Provider: request.Anthropic, Model: "claude-sonnet-4-5",
		Policy: &deferral.Policy{Default: deferral.DefaultDefer}, Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`1024`)},
		Dispatcher: d,
	})
	require.NoError(t, err)
	for _, name := range []string{"get-sum", "read_text_file"} {
		assert.Contains(t, string(s.Prefix()), name, "%s in the index", name)
	}
	res := s.Call(ctx, registry.ToolSearchName, json.RawMessage(`{"tool_names":["mcp__fs__read_text_file"]}`))
	require.False(t, res.IsError, res.Text)
	res = s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"mcp__fs__read_text_file","params":{"path":"`+filepath.Join(root, "notes.txt")+`"}}`))
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "from the config")
}

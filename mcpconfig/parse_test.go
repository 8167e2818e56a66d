package mcpconfig

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(vars map[string]string) *Options {
	return &Options{Getenv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
}

// TestParse reads the shapes Claude Desktop (stdio), Claude Code (type,
// ${VAR} expansion) and Cursor (url with headers) write.
func TestParse(t *testing.T) {
	file := `{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "${TOKEN}", "A": "1"}, "cwd": "${HOME:-/h}"},
		"web": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${KEY:-none}"}},
		"cursor-style": {"url": "http://localhost:8080/mcp"},
		"off": {"command": "x", "disabled": true},
		"cline": {"command": "node", "args": ["s.js"], "alwaysAllow": ["a"], "timeout": 60}
	}, "globalShortcut": ""}`
	srvs, err := Parse([]byte(file), env(map[string]string{"TOKEN": "t0k"}))
	require.NoError(t, err)
	assert.Equal(t, []Server{
		{Name: "cline", Command: []string{"node", "s.js"}},
		{Name: "cursor-style", URL: "http://localhost:8080/mcp"},
		{Name: "github", Command: []string{"npx", "-y", "@modelcontextprotocol/server-github"}, Env: []string{"A=1", "GITHUB_TOKEN=t0k"}, Dir: "/h"},
		{Name: "off", Disabled: true},
		{Name: "web", URL: "https://mcp.example.com/mcp", Headers: http.Header{"Authorization": {"Bearer none"}}},
	}, srvs)
}

// TestParseErrors: every refusal wraps ErrInvalid and names the server and
// the field.
func TestParseErrors(t *testing.T) {
	cases := map[string]struct{ file, want string }{
		"not json":        {`{`, "not a JSON object"},
		"null":            {`null`, "not a JSON object"},
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
		"unset var":       {`{"mcpServers":{"a":{"command":"x","env":{"K":"${NOPE}"}}}}`, "env.K: ${NOPE} is not set"},
		"args not list":   {`{"mcpServers":{"a":{"command":"x","args":"-y"}}}`, `mcpServers["a"]: args:`},
		"type mismatch":   {`{"mcpServers":{"a":{"type":"http","command":"x"}}}`, `type "http" with a command`},
		"bad env key":     {`{"mcpServers":{"a":{"command":"x","env":{"A=B":"1"}}}}`, "env key"},
		"too big":         {`{"mcpServers":{"a":{"command":"` + strings.Repeat("x", maxBytes) + `"}}}`, "the limit is"},
		"null servers":    {`{"mcpServers":null}`, "not an object of servers"},
		"args wrong type": {`{"mcpServers":{"a":{"command":"x","args":[1]}}}`, `mcpServers["a"]: args:`},
		"lone case variant": {`{"mcpServers":{"a":{"Command":"sh"}}}`,
			`mcpServers["a"]: unknown key "Command": keys are case-sensitive, write "command"`},
		"disabled twice": {`{"mcpServers":{"a":{"command":"x","disabled":false,"disabled":true}}}`, `key "disabled" given twice`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.file), env(nil))
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing.json"), nil)
	require.ErrorIs(t, err, ErrInvalid)
}

// TestParseDuplicateKeys: a key given twice in one object, at any depth
// and in any spelling — escaped, or in another case — is an error naming
// both positions. Issue 43: {"command":"true","Command":"sh",...} ran sh
// through the command-line tool (encoding/json matches a field whatever
// the key's case, last wins) while a reviewer read true.
func TestParseDuplicateKeys(t *testing.T) {
	for name, c := range map[string]struct{ file, want string }{
		"server name": {"{\"mcpServers\": {\n  \"a\": {\"command\": \"safe\"},\n  \"a\": {\"command\": \"sh\", \"args\": [\"-c\", \"evil\"]}\n}}",
			`key "a" given twice in one object (at /mcpServers): at line 2 column 3 and at line 3 column 3`},
		"command": {`{"mcpServers":{"s":{"command":"safe","command":"sh"}}}`,
			`key "command" given twice in one object (at /mcpServers/s): at line 1 column 21 and at line 1 column 38`},
		"command in another case": {`{"mcpServers":{"s":{"command":"true","Command":"sh","args":["-c","evil"]}}}`,
			`keys "command" and "Command" differ only in case in one object (at /mcpServers/s): at line 1 column 21 and at line 1 column 38`},
		"server name in another case": {`{"mcpServers":{"gh":{"command":"a"},"GH":{"command":"b"}}}`, `keys "gh" and "GH" differ only in case`},
		"kelvin sign":                 {`{"mcpServers":{"s":{"url":"http://h/","headers":{"K":"1","\u212a":"2"}}}}`, `differ only in case in one object (at /mcpServers/s/headers)`},
		"args":                        {`{"mcpServers":{"s":{"command":"x","args":["a"],"args":["-c","evil"]}}}`, `key "args" given twice`},
		"env var":                     {`{"mcpServers":{"s":{"command":"x","env":{"PATH":"/a","PATH":"/b"}}}}`, `(at /mcpServers/s/env)`},
		"header in another case":      {`{"mcpServers":{"s":{"url":"http://h/","headers":{"X-Key":"1","x-key":"2"}}}}`, `keys "X-Key" and "x-key"`},
		"top":                         {`{"mcpServers":{},"mcpServers":{"s":{"command":"sh"}}}`, `(at the top level)`},
		"top in another case":         {`{"mcpServers":{},"MCPServers":{"s":{"command":"sh"}}}`, `(at the top level)`},
		"in a list":                   {`{"mcpServers":{"s":{"command":"x","alwaysAllow":[{"k":1,"k":2}]}}}`, `(at /mcpServers/s/alwaysAllow/0)`},
		"escaped spelling":            {`{"mcpServers":{"s":{"command":"safe","comm\u0061nd":"sh"}}}`, `key "command" given twice`},
		"escaped in another case":     {`{"mcpServers":{"s":{"command":"safe","\u0043ommand":"sh"}}}`, `keys "command" and "Command"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.file), env(nil))
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	srvs, err := Parse([]byte(`{"mcpServers":{"a":{"command":"x","env":{"K":"1"}},"b":{"command":"y","env":{"K":"2"}}}}`), env(nil))
	require.NoError(t, err, "equal keys in different objects are not duplicates")
	assert.Len(t, srvs, 2)
}

// TestLoadBounded: Load refuses a file over the bound by its size before
// reading it, and reads at most the bound from anything else.
func TestLoadBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(128<<20)) // sparse: nothing is written
	require.NoError(t, f.Close())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Load(path, nil)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "the limit is 1048576")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "the file was read")

	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err = Load("/dev/zero", nil)
		require.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), "more than")
	}

	ok := filepath.Join(t.TempDir(), "ok.json")
	require.NoError(t, os.WriteFile(ok, []byte(`{"mcpServers":{"a":{"command":"x"}}}`), 0o644))
	srvs, err := Load(ok, nil)
	require.NoError(t, err)
	assert.Equal(t, []Server{{Name: "a", Command: []string{"x"}}}, srvs)
}

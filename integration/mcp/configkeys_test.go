package mcp

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 33: a server name or a command/args/disabled key given twice was
// read last-wins (encoding/json), so "sh -c ..." ran where a reviewer read
// the first value. Every duplicate key, at any depth, is an error naming
// the key, where it is and both positions.
func TestParseConfigDuplicateKeys(t *testing.T) {
	for name, c := range map[string]struct{ file, want string }{
		"server name": {"{\"mcpServers\": {\n  \"a\": {\"command\": \"safe\"},\n  \"a\": {\"command\": \"sh\", \"args\": [\"-c\", \"evil\"]}\n}}",
			`key "a" given twice in one object (at /mcpServers): at line 2 column 3 and at line 3 column 3`},
		"command": {`{"mcpServers":{"s":{"command":"safe","command":"sh"}}}`,
			`key "command" given twice in one object (at /mcpServers/s): at line 1 column 21 and at line 1 column 38`},
		"args":     {`{"mcpServers":{"s":{"command":"x","args":["a"],"args":["-c","evil"]}}}`, `key "args" given twice`},
		"disabled": {`{"mcpServers":{"s":{"command":"x","disabled":true, "disabled":false}}}`, `key "disabled" given twice`},
		"env var":  {`{"mcpServers":{"s":{"command":"x","env":{"PATH":"/a","PATH":"/b"}}}}`, `(at /mcpServers/s/env)`},
		"header":   {`{"mcpServers":{"s":{"url":"http://h/","headers":{"A":"1","A":"2"}}}}`, `key "A" given twice`},
		"top":      {`{"mcpServers":{},"mcpServers":{"s":{"command":"sh"}}}`, `(at the top level)`},
		"in a list": {`{"mcpServers":{"s":{"command":"x","alwaysAllow":[{"k":1,"k":2}]}}}`,
			`(at /mcpServers/s/alwaysAllow/0)`},
		"escaped spelling": {`{"mcpServers":{"s":{"command":"safe","comm\u0061nd":"sh"}}}`, `key "command" given twice`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.file), env(nil))
			require.ErrorIs(t, err, ErrConfig)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	// Equal keys in different objects are not duplicates.
	srvs, err := ParseConfig([]byte(`{"mcpServers":{"a":{"command":"x","env":{"K":"1"}},"b":{"command":"y","env":{"K":"2"}}}}`), env(nil))
	require.NoError(t, err)
	assert.Len(t, srvs, 2)
}

// Issue 33: LoadConfig read a 128 MiB file whole before its 1 MiB check.
// It refuses by size before reading, and reads at most the bound from
// anything else.
func TestLoadConfigBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(128<<20)) // sparse: nothing is written
	require.NoError(t, f.Close())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = LoadConfig(path, nil)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "the limit is")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "the file was read")

	// A device has no size to check: at most the bound is read.
	if _, err := os.Stat("/dev/zero"); err == nil {
		runtime.ReadMemStats(&before)
		_, err = LoadConfig("/dev/zero", nil)
		runtime.ReadMemStats(&after)
		require.ErrorIs(t, err, ErrConfig)
		assert.Contains(t, err.Error(), "more than")
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20))
	}

	ok := filepath.Join(t.TempDir(), "ok.json")
	require.NoError(t, os.WriteFile(ok, []byte(`{"mcpServers":{"a":{"command":"x"}}}`), 0o644))
	srvs, err := LoadConfig(ok, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, srvs[0].Command)
}

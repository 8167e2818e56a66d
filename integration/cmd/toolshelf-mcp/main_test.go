package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/registry"
)

func everythingCommand(t *testing.T) string {
	t.Helper()
	script, _ := filepath.Abs("../../../testdata/mcp-servers/node_modules/.bin/mcp-server-everything")
	_, nodeErr := exec.LookPath("node")
	_, statErr := os.Stat(script)
	if nodeErr == nil && statErr == nil {
		return "node '" + script + "' stdio"
	}
	msg := "needs node and the npm servers; run: cd testdata/mcp-servers && npm ci"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func TestBudgetLiveServer(t *testing.T) {
	cmdline := everythingCommand(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	catalog := filepath.Join(t.TempDir(), "everything.tools.json")
	var out, errOut bytes.Buffer
	err := run(ctx, []string{"budget", "--mcp-stdio", cmdline, "--name", "everything", "--json", "--catalog-out", catalog}, &out, &errOut)
	require.NoError(t, err, errOut.String())

	var got struct {
		Server  string         `json:"server"`
		Tools   int            `json:"tools"`
		Account budget.Account `json:"account"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, "everything", got.Server)

	// The catalog written is what the account measured: reload it and
	// recompute the deferred size from its tools.
	c, err := registry.LoadCatalog(catalog)
	require.NoError(t, err)
	assert.Equal(t, "everything", c.Server)
	reg := registry.New(nil)
	require.NoError(t, reg.Import(c))
	chars := 0
	for _, tl := range reg.Snapshot().Tools() {
		chars += budget.ToolChars(tl)
	}
	assert.Equal(t, len(c.Tools), got.Tools)
	assert.Equal(t, len(c.Tools), got.Account.DeferredCount, "--default defer defers every tool")
	assert.Equal(t, chars, got.Account.DeferredChars)
	assert.Positive(t, got.Account.NetSaving)
}

func TestBudgetUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no subcommand", nil},
		{"unknown subcommand", []string{"list"}},
		{"no server", []string{"budget"}},
		{"both transports", []string{"budget", "--mcp-stdio", "x", "--mcp-http", "http://x"}},
		{"bad default", []string{"budget", "--mcp-stdio", "x", "--default", "sometimes"}},
		{"unterminated quote", []string{"budget", "--mcp-stdio", `x "y`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			require.Error(t, err)
			assert.Empty(t, out.String())
		})
	}
}

// Package longtest gates the repository's long test runs, so that the
// README's test command stays under a minute on two cores while .ci/run
// still runs everything.
//
// Long runs are on when TOOLSHELF_LONG=1 ([EnvVar]); .ci/run sets it. They
// are: the soak test at full size (internal/testkit/soak), the tests against real
// npm MCP servers (internal/engine/mcpstdio, cmd/toolshelf, integration/mcp), the
// SDK judge on every body of its long sessions and on every wild-corpus
// server for every provider (integration/internal/sdkcheck), and the search
// quality sweep over every query set with the figures in the docs
// (internal/engine/toolsearch TestQuality); off, the soak runs small, the
// real-server tests skip, the judge checks a sample of the bodies and each
// wild server on one provider, and the quality bars run on two sets. No test is left out of the short run
// except those that need a real server.
package longtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvVar names the environment variable that turns long runs on.
const EnvVar = "TOOLSHELF_LONG"

// On reports whether long runs are on: [EnvVar] is 1.
func On() bool { return os.Getenv(EnvVar) == "1" }

// NPMServer returns the argv that starts the installed npm MCP server bin
// (a name under node_modules/.bin of the pinned servers in dir, the path of
// testdata/mcp-servers from the calling package) over stdio, followed by
// args. It skips t unless long runs are on; with them on, a missing node
// or package fails t under CI=true (CI must run these tests) and skips it
// otherwise, naming the install command.
func NPMServer(t testing.TB, dir, bin string, args ...string) []string {
	t.Helper()
	if !On() {
		t.Skip("real MCP server test: a long run; set " + EnvVar + "=1 (.ci/run does)")
	}
	node, err := exec.LookPath("node")
	script, _ := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", bin))
	_, statErr := os.Stat(script)
	var why string
	switch {
	case err != nil:
		why = "node is not on PATH (install Node.js 20 or later)"
	case statErr != nil:
		why = bin + " is not installed"
	default:
		return append([]string{node, script}, args...)
	}
	msg := "real MCP server test: " + why + "; run: cd testdata/mcp-servers && npm ci"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return nil
}

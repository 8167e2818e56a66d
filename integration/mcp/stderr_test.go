package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// failServerEnv makes the test binary a stdio server that fails (see
// TestMain): "npm-404" writes what npx writes for a package the registry
// does not have and exits 1 before reading anything; "list-crash" answers
// initialize, then writes a line to stderr and exits 2 on tools/list.
const failServerEnv = "TOOLSHELF_TEST_FAIL_SERVER"

// npm404 is npm's stderr for a package the registry does not have (npm 10).
const npm404 = `npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-nope - Not found
npm error 404
npm error 404  '@modelcontextprotocol/server-nope@*' is not in this registry.
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-12-06T05_00_00_000Z-debug-0.log
`

func runFailingServer(mode string) {
	switch mode {
	case "npm-404":
		fmt.Fprint(os.Stderr, npm404)
		os.Exit(1)
	case "list-crash":
		s := sdk.NewServer(&sdk.Implementation{Name: "crash", Version: "1.0.0"}, nil)
		s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
			return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
				if method == "tools/list" {
					fmt.Fprintln(os.Stderr, "crash: cannot read /etc/crash.json: permission denied")
					os.Exit(2)
				}
				return next(ctx, method, req)
			}
		})
		_ = s.Run(context.Background(), &sdk.StdioTransport{})
	}
	os.Exit(9)
}

func failingServer(t *testing.T, mode string, stderr *bytes.Buffer) Server {
	exe, err := os.Executable()
	require.NoError(t, err)
	srv := Server{Name: "nope", Command: []string{exe}, Env: []string{failServerEnv + "=" + mode}}
	if stderr != nil {
		srv.Stderr = stderr
	}
	return srv
}

// TestStartFailureCarriesStderrAndStatus: a stdio server that exits before
// answering says why in the Manager's error (its exit status and the tail of
// its stderr), not only the go-sdk's "client is closing: EOF"; Err keeps
// it, errors.As finds a StartError, and Server.Stderr receives all of it.
func TestStartFailureCarriesStderrAndStatus(t *testing.T) {
	for _, tc := range []struct {
		mode, stage, stderr string
		code                int
	}{
		{"npm-404", "connect", "npm error 404  '@modelcontextprotocol/server-nope@*' is not in this registry.", 1},
		{"list-crash", "tools/list", "crash: cannot read /etc/crash.json: permission denied", 2},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			var whole bytes.Buffer
			m := New(registry.New(nil), &Options{NoAutoReconnect: true})
			defer m.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := m.Connect(ctx, failingServer(t, tc.mode, &whole))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrUnavailable)
			msg := err.Error()
			t.Log(msg)
			assert.Contains(t, msg, `server "nope": `+tc.stage+": ")
			assert.Contains(t, msg, fmt.Sprintf("the server exited (exit status %d)", tc.code))
			assert.Contains(t, msg, "stderr: ")
			assert.Contains(t, msg, tc.stderr)
			assert.NotContains(t, msg, "\n", "one line")
			var se *StartError
			require.True(t, errors.As(err, &se), "errors.As finds the StartError")
			assert.Equal(t, "nope", se.Server)
			assert.True(t, se.Exited)
			assert.Equal(t, tc.code, se.ExitCode)
			assert.Contains(t, se.Stderr, tc.stderr)
			assert.Equal(t, msg, m.Err("nope").Error(), "Err says the same")
			assert.Contains(t, whole.String(), tc.stderr, "Server.Stderr receives the whole stderr")
			if tc.mode == "npm-404" {
				assert.Equal(t, npm404, whole.String())
			}
		})
	}
}

// TestStartErrorQuotesTheEnd: a long stderr is quoted by its end, on one
// line, marked as cut.
func TestStartErrorQuotesTheEnd(t *testing.T) {
	e := &StartError{Err: errors.New("calling \"initialize\": EOF"), Exited: true, Status: "exit status 1",
		Stderr: strings.Repeat("noise line\n", 100) + "the reason\n"}
	msg := e.Error()
	assert.True(t, strings.HasSuffix(msg, "noise line | the reason"), msg)
	assert.Contains(t, msg, "; stderr: …")
	assert.Less(t, len([]rune(msg)), 400)
	tl := &tail{max: 8}
	tl.Write([]byte("0123456789"))
	tl.Write([]byte("ab"))
	assert.Equal(t, "…456789ab", tl.String())
}

package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A StartError is a stdio server whose connection attempt failed: it exited,
// or closed its stdout, before answering initialize or tools/list, or did
// not answer in time. It carries what the go-sdk's error ("calling
// "initialize": client is closing: EOF") does not: how the process ended
// and the last of its stderr, where an npx server says why it did not start
// (an npm 404, a missing runtime, a bad argument). The Manager's errors wrap
// it together with [ErrUnavailable]; errors.As finds it. [Server.Stderr]
// receives the whole stderr.
type StartError struct {
	// Server is the server's name.
	Server string
	// Exited reports that the process had exited when the error was made;
	// ExitCode is its exit code then (-1 when a signal ended it).
	Exited   bool
	ExitCode int
	// Status is how the process ended, as os.ProcessState says it ("exit
	// status 1", "signal: killed"); empty while it runs.
	Status string
	// Stderr is the last 4 KiB of the server's stderr.
	Stderr string
	// Err is the client's error.
	Err error
}

// stderrTail is how many of a stdio server's last stderr bytes a
// [StartError] keeps.
const stderrTail = 4 << 10

// maxQuoted bounds the stderr a StartError quotes in its message, in runes.
const maxQuoted = 300

// Error returns the client's error, then the exit status and the last lines
// of stderr joined by " | " on one line.
func (e *StartError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Exited {
		fmt.Fprintf(&b, "; the server exited (%s)", e.Status)
	}
	if q := quoteStderr(e.Stderr); q != "" {
		b.WriteString("; stderr: ")
		b.WriteString(q)
	}
	return b.String()
}

// Unwrap returns the client's error.
func (e *StartError) Unwrap() error { return e.Err }

// quoteStderr is s's non-blank lines, trimmed and joined by " | ", at most
// maxQuoted runes of its end.
func quoteStderr(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.ToValidUTF8(s, "\uFFFD"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	q := strings.Join(lines, " | ")
	if r := []rune(q); len(r) > maxQuoted {
		q = "…" + string(r[len(r)-maxQuoted:])
	}
	return q
}

// tail keeps the last max bytes written to it: a server's stderr, which
// exec copies from a goroutine of its own.
type tail struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped {
		return "…" + string(t.buf)
	}
	return string(t.buf)
}

// terminateAfter is how long closing a stdio connection waits for the
// server to exit after closing its stdin, and again after SIGTERM, before
// it kills it (the go-sdk's CommandTransport waits 5 s).
const terminateAfter = 5 * time.Second

// stdioProcess is one connection attempt's stdio server: the go-sdk's
// CommandTransport, keeping the exit status and the stderr tail for a
// [StartError]. It is its own Transport because the go-sdk's waits for the
// process only inside Close, where the status cannot be read without a race.
type stdioProcess struct {
	cmd     *exec.Cmd
	stderr  *tail
	exited  chan struct{} // closed once waitErr is set
	waitErr error
}

func newStdioProcess(s *Server) *stdioProcess {
	p := &stdioProcess{
		cmd:    exec.Command(s.Command[0], s.Command[1:]...),
		stderr: &tail{max: stderrTail},
		exited: make(chan struct{}),
	}
	p.cmd.Env = append(os.Environ(), s.Env...)
	p.cmd.Dir = s.Dir
	p.cmd.Stderr = p.stderr
	if s.Stderr != nil {
		p.cmd.Stderr = io.MultiWriter(p.stderr, s.Stderr)
	}
	// Wait returns this long after the server exits even when something it
	// started still holds its stderr open.
	p.cmd.WaitDelay = time.Second
	return p
}

// Connect starts the process. Its stdout and stdin are pipes of our own, so
// that waiting for the process (at once, for its status) never closes a
// stdout the connection still reads.
func (p *stdioProcess) Connect(ctx context.Context) (sdk.Connection, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p.cmd.Stdin, p.cmd.Stdout = inR, outW
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		close(p.exited)
		return nil, err
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t := &sdk.IOTransport{Reader: outR, Writer: &stdinCloser{File: inW, p: p}}
	return t.Connect(ctx)
}

// stdinCloser is the server's stdin; closing it stops the server as the MCP
// stdio transport says: close its input, wait, SIGTERM, wait, SIGKILL.
type stdinCloser struct {
	*os.File
	p *stdioProcess
}

func (w *stdinCloser) Close() error {
	err := w.File.Close()
	if w.p.waitFor(terminateAfter) {
		return err
	}
	if w.p.cmd.Process.Signal(syscall.SIGTERM) == nil && w.p.waitFor(terminateAfter) {
		return err
	}
	w.p.cmd.Process.Kill()
	w.p.waitFor(terminateAfter)
	return err
}

// waitFor reports whether the process exits within d.
func (p *stdioProcess) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// startError wraps err, an attempt's failure, with how the process ended
// (waiting up to a second for it: a server that closed its stdout is
// usually exiting) and its stderr tail.
func (p *stdioProcess) startError(name string, err error) *StartError {
	e := &StartError{Server: name, Err: err}
	if p.waitFor(time.Second) && p.cmd.ProcessState != nil {
		e.Exited = true
		e.ExitCode = p.cmd.ProcessState.ExitCode()
		e.Status = p.cmd.ProcessState.String()
	}
	e.Stderr = p.stderr.String()
	return e
}

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolshelf/toolshelf/integration/mcp"
)

// tailSize is how much of a server's standard error the gateway keeps: the
// end of an npm 404 or a stack trace fits.
const tailSize = 4096

// tail keeps the last tailSize bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// summary returns what says most about a failure in a few lines: the last
// lines that mention an error (an npm 404, a missing module, a stack
// trace's message), then the last lines, each once, in order.
func (t *tail) summary() []string {
	t.mu.Lock()
	var all []string
	for l := range strings.SplitSeq(string(bytes.ToValidUTF8(t.buf, nil)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			all = append(all, l)
		}
	}
	t.mu.Unlock()
	keep := map[int]bool{}
	errs := 0
	for i := len(all) - 1; i >= 0 && errs < 3; i-- {
		if l := strings.ToLower(all[i]); strings.Contains(l, "error") || strings.Contains(l, "not found") || strings.Contains(l, "cannot") || strings.Contains(l, "failed") {
			keep[i] = true
			errs++
		}
	}
	for i := max(0, len(all)-3); i < len(all); i++ {
		keep[i] = true
	}
	var out []string
	for i, l := range all {
		if keep[i] {
			out = append(out, clip(l, 300))
		}
	}
	return out
}

// process watches a stdio server's process: its stderr tail and the last
// command started, whose exit status says how it ended.
type process struct {
	stderr tail

	mu  sync.Mutex
	cmd *exec.Cmd
}

// status returns how the last process ended ("exit status 1"), waiting up
// to d for the transport to reap it, or "" while it runs.
func (p *process) status(d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		p.mu.Lock()
		cmd := p.cmd
		p.mu.Unlock()
		if cmd != nil && cmd.ProcessState != nil {
			return cmd.ProcessState.String()
		}
		if cmd == nil || time.Now().After(deadline) {
			return ""
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// watchStdio makes srv's process observable: the Manager starts it through
// a transport the gateway builds (integration/mcp's Server.Transport), so
// that the gateway keeps its stderr tail and exit status. tee, when set,
// also receives the stderr.
func watchStdio(srv *mcp.Server, tee io.Writer) *process {
	if len(srv.Command) == 0 {
		return nil
	}
	p := &process{}
	argv, env, dir := srv.Command, srv.Env, srv.Dir
	var w io.Writer = &p.stderr
	if tee != nil {
		w = io.MultiWriter(&p.stderr, prefixWriter{tee, "[" + srv.Name + "] "})
	}
	srv.Command, srv.Env, srv.Dir, srv.Stderr = nil, nil, "", nil
	srv.Transport = func() sdk.Transport {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Dir = dir
		cmd.Stderr = w
		p.mu.Lock()
		p.cmd = cmd
		p.mu.Unlock()
		return &sdk.CommandTransport{Command: cmd}
	}
	return p
}

// prefixWriter writes p to w with a prefix (one write, one line or more).
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (pw prefixWriter) Write(p []byte) (int, error) {
	_, err := pw.w.Write(append([]byte(pw.prefix), p...))
	return len(p), err
}

// why says why server is unavailable: the Manager's error, and for a stdio
// server how its process ended and the end of its stderr. "" when it is
// ready or still connecting.
//
// A server the gateway is reconnecting is not unavailable to the Manager
// while the attempt runs: its last failure is kept and told meanwhile.
func (g *gateway) why(server string) string {
	err := g.m.Err(server)
	if err == nil {
		g.failMu.Lock()
		defer g.failMu.Unlock()
		if !slices.Contains(g.m.Pending(), server) {
			delete(g.failures, server)
			return ""
		}
		if last := g.failures[server]; last != "" {
			return "reconnecting; the last attempt failed: " + last
		}
		return ""
	}
	s := err.Error()
	if p := g.procs[server]; p != nil {
		if st := p.status(200 * time.Millisecond); st != "" {
			s += "; the process ended: " + st
		}
		if ls := p.stderr.summary(); len(ls) > 0 {
			s += "; its stderr ends: " + strings.Join(ls, " | ")
		}
	}
	g.failMu.Lock()
	g.failures[server] = s
	g.failMu.Unlock()
	return s
}

// backoff is the wait before the n-th reconnect attempt (n ≥ 1): one
// second, doubled each time, at most a minute.
func backoff(n int) time.Duration {
	d := time.Second
	for i := 1; i < n && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}

// supervise reconnects unavailable servers with backoff until g.ctx ends.
func (g *gateway) supervise(tick time.Duration) {
	fails := map[string]int{}
	next := map[string]time.Time{}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-g.ctx.Done():
			return
		case <-t.C:
		}
		if g.pins.changedOnDisk() {
			g.refresh()
		}
		pending := map[string]bool{}
		for _, n := range g.m.Pending() {
			pending[n] = true
		}
		for _, n := range g.m.Servers() {
			if pending[n] {
				continue
			}
			if g.m.Err(n) == nil {
				delete(fails, n)
				continue
			}
			now := time.Now()
			if t, ok := next[n]; ok && now.Before(t) {
				continue
			}
			if fails[n] == 0 {
				g.logf("server %s unavailable: %s", n, g.why(n))
			}
			fails[n]++
			next[n] = now.Add(backoff(fails[n]))
			go func() {
				if err := g.m.Reconnect(g.ctx, n); err == nil {
					g.logf("server %s reconnected", n)
				}
			}()
		}
	}
}

func (g *gateway) logf(format string, args ...any) {
	if g.log != nil {
		fmt.Fprintf(g.log, "toolshelf-gateway: "+format+"\n", args...)
	}
}

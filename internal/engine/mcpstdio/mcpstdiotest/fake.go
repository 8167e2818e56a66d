// Package mcpstdiotest turns a test binary into a fake MCP stdio server, for
// testing mcpstdio and the commands built on it without Node or the network:
// call [Main] first in TestMain, then start [Command] (the test binary
// re-executed with [EnvVar] set to a mode).
//
// The fake server is strict: a client message it does not expect makes it
// write the reason to stderr and exit 3, so a test sees the client's mistake
// as an early-exit error quoting it.
package mcpstdiotest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// EnvVar selects the fake server's mode in a re-executed test binary.
const EnvVar = "MCPSTDIO_FAKE_SERVER"

// Modes of the fake server.
const (
	// Good answers initialize, then lists Pages() as three tools/list pages.
	// Before the second page it sends a notification and two
	// server-to-client requests (roots/list and sampling/createMessage) and
	// waits for the client's answers; before the third, a ping.
	Good = "good"
	// OldVersion is Good answering with protocol revision 2024-11-05.
	OldVersion = "old-version"
	// ExitAtStart writes two lines to stderr and exits 3 before reading.
	ExitAtStart = "exit-at-start"
	// ExitAfterInit answers initialize, then exits 1 on tools/list after a
	// line of stderr.
	ExitAfterInit = "exit-after-init"
	// Silent reads and never answers.
	Silent = "silent"
	// Garbage answers initialize with a line that is not JSON.
	Garbage = "garbage"
	// RPCError answers tools/list with JSON-RPC error -32601 and declares no
	// tools capability.
	RPCError = "rpc-error"
	// Endless answers every tools/list page with a new nextCursor.
	Endless = "endless"
	// RepeatCursor answers every tools/list page with the same nextCursor.
	RepeatCursor = "repeat-cursor"
	// NoVersion answers initialize without a protocolVersion.
	NoVersion = "no-version"
	// WrongID answers initialize with a response to id 99.
	WrongID = "wrong-id"
	// Orphan is Good, after starting a descendant (mode Sleep) that holds
	// its stdout and stderr; it writes the descendant's pid to the file
	// named by the environment variable PidFileVar.
	Orphan = "orphan"
	// Sleep blocks until killed.
	Sleep = "sleep"
)

// PidFileVar names the file the Orphan mode writes its descendant's pid to.
const PidFileVar = "MCPSTDIO_FAKE_PIDFILE"

// ServerName, ServerTitle, ServerDescription and Instructions are the fake
// server's initialize answer.
const (
	ServerName  = "acme/Fake Server!"
	ServerTitle = "Fake Server"
	// ServerDescription is its serverInfo description.
	ServerDescription = "A fake server, described in its serverInfo."
	Instructions      = "Fake tools for tests."
)

// Pages returns the tools/list pages of Good, in order: each a JSON array
// of tools, with keys in an order that is not sorted (so a client that
// re-encodes schemas through maps is caught), extra members the registry
// does not read, and a server-set defer_loading the client must drop.
func Pages() []string {
	return []string{
		`[{"name":"zeta_search","title":"Zeta","description":"Search zetas.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"What to find"},"limit":{"type":"integer"}},"required":["query"]},"annotations":{"readOnlyHint":true}},
		  {"description":"Create an alpha.","name":"alpha_create","inputSchema":{"properties":{"z":{"type":"string"},"a":{"type":"number"}},"type":"object"},"outputSchema":{"type":"object"},"defer_loading":false}]`,
		`[{"name":"mid_tool","inputSchema":{"type":"object"},"_meta":{"x":1},"description":"Uses <html> & \"quotes\"."}]`,
		`[{"name":"last_tool","description":"Last.","inputSchema":{"type":"object","properties":{"b":{"type":"boolean"},"a":{"type":"boolean"}}},"tier":"full"}]`,
	}
}

// Command returns the argv and the environment entry that start the fake
// server in mode.
func Command(mode string) (argv []string, env string) {
	return []string{os.Args[0]}, EnvVar + "=" + mode
}

// Main runs the fake server and exits when [EnvVar] is set; otherwise it
// returns at once. Call it first in TestMain.
func Main() {
	mode := os.Getenv(EnvVar)
	if mode == "" {
		return
	}
	os.Exit(serve(mode, os.Stdin, os.Stdout, os.Stderr))
}

type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// serve speaks the protocol on in and out in mode and returns the exit
// status.
func serve(mode string, in io.Reader, out, errw io.Writer) int {
	switch mode {
	case ExitAtStart:
		fmt.Fprintln(errw, "fake: loading config")
		fmt.Fprintln(errw, "fake: fatal: config /nonexistent/fake.json not found")
		return 3
	case Sleep:
		for { // not select{}: with no other goroutine that is a deadlock
			time.Sleep(time.Hour)
		}
	case Orphan:
		if err := startOrphan(); err != nil {
			fmt.Fprintln(errw, "fake:", err)
			return 3
		}
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	c := &fakeConn{sc: sc, in: in, out: out, errw: errw}
	if code, ok := c.initialize(mode); !ok {
		return code
	}
	return c.listTools(mode)
}

// fakeConn is the fake server's side of one stdio session.
type fakeConn struct {
	sc        *bufio.Scanner
	in        io.Reader
	out, errw io.Writer
}

// next reads the client's next message; false at end of input or on a line
// that is not JSON.
func (c *fakeConn) next() (msg, bool) {
	for c.sc.Scan() {
		var m msg
		var batch []msg
		// A batch of one is one message: the answer to the batched ping
		// comes back batched from a client that keeps the form (the go-sdk).
		if json.Unmarshal(c.sc.Bytes(), &batch) == nil && len(batch) == 1 {
			return batch[0], true
		}
		if err := json.Unmarshal(c.sc.Bytes(), &m); err != nil {
			fmt.Fprintf(c.errw, "fake: client wrote a line that is not JSON: %q\n", c.sc.Text())
			return msg{}, false
		}
		return m, true
	}
	return msg{}, false
}

// send writes one line to the client.
func (c *fakeConn) send(s string) { fmt.Fprintln(c.out, s) }

// expect reads the client's next message and requires it to call method.
func (c *fakeConn) expect(method string) (msg, bool) {
	m, ok := c.next()
	if !ok {
		return m, false
	}
	if m.Method != method {
		fmt.Fprintf(c.errw, "fake: want %s, got method %q id %s\n", method, m.Method, m.ID)
		return m, false
	}
	return m, true
}

// expectAnswer reads the client's answer to our request id.
func (c *fakeConn) expectAnswer(id string, wantResult bool) bool {
	m, ok := c.next()
	if !ok {
		return false
	}
	if string(m.ID) != id || m.Method != "" || (len(m.Result) > 0) != wantResult || (len(m.Error) > 0) == wantResult {
		fmt.Fprintf(c.errw, "fake: bad answer to %s: %+v\n", id, m)
		return false
	}
	return true
}

// initialize runs the handshake as mode dictates. It returns true when the
// session goes on to list tools, else false and the exit code.
func (c *fakeConn) initialize(mode string) (int, bool) {
	m, ok := c.next()
	if ok && m.Method == "server/discover" {
		// A client of protocol 2026-07-28 (the go-sdk's, in the integration
		// module) discovers first and falls back to initialize on an
		// unknown method, as a server of an earlier revision answers.
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID))
		m, ok = c.next()
	}
	if ok && m.Method != "initialize" {
		fmt.Fprintf(c.errw, "fake: want initialize, got method %q id %s\n", m.Method, m.ID)
		ok = false
	}
	if !ok {
		if mode == Silent {
			return 0, false
		}
		return 3, false
	}
	var ip struct {
		ProtocolVersion string `json:"protocolVersion"`
		ClientInfo      struct {
			Name string `json:"name"`
		} `json:"clientInfo"`
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := json.Unmarshal(m.Params, &ip); err != nil || ip.ProtocolVersion == "" || ip.ClientInfo.Name != "toolshelf" || ip.Capabilities == nil {
		fmt.Fprintf(c.errw, "fake: bad initialize params %s\n", m.Params)
		return 3, false
	}
	version, caps := ip.ProtocolVersion, `{"tools":{"listChanged":true},"logging":{}}`
	switch mode {
	case Silent:
		io.Copy(io.Discard, c.in)
		return 0, false
	case Garbage:
		c.send("Server listening on stdio, welcome!")
		io.Copy(io.Discard, c.in)
		return 0, false
	case OldVersion:
		version = "2024-11-05"
	case RPCError:
		caps = `{}`
	case WrongID:
		m.ID = json.RawMessage("99")
	}
	info := fmt.Sprintf(`{"name":%q,"title":%q,"description":%q,"version":"1.2.3"}`, ServerName, ServerTitle, ServerDescription)
	if mode == NoVersion {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"capabilities":%s,"serverInfo":%s}}`, m.ID, caps, info))
	} else {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":%s,"serverInfo":%s,"instructions":%q}}`, m.ID, version, caps, info, Instructions))
	}
	if _, ok := c.expect("notifications/initialized"); !ok {
		return 3, false
	}
	return 0, true
}

// listTools answers tools/list requests page by page until the client
// closes stdin, and returns the exit code.
func (c *fakeConn) listTools(mode string) int {
	pages := Pages()
	for page := 0; ; page++ {
		m, ok := c.next()
		if !ok {
			return 0 // the client closed stdin: done
		}
		if m.Method != "tools/list" {
			fmt.Fprintf(c.errw, "fake: want tools/list, got %q\n", m.Method)
			return 3
		}
		var p struct {
			Cursor *string `json:"cursor"`
		}
		json.Unmarshal(m.Params, &p)
		if want := pageCursor(page); mode != Endless && mode != RepeatCursor && page > 0 && (p.Cursor == nil || *p.Cursor != want) || page == 0 && p.Cursor != nil {
			fmt.Fprintf(c.errw, "fake: page %d: want cursor %q, got %s\n", page+1, want, m.Params)
			return 3
		}
		switch mode {
		case ExitAfterInit:
			fmt.Fprintln(c.errw, "fake: crashed while listing tools")
			return 1
		case RPCError:
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID))
			continue
		case Endless, RepeatCursor:
			cursor := pageCursor(page + 1)
			if mode == RepeatCursor {
				cursor = "again"
			}
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"nextCursor":%q}}`, m.ID, cursor))
			continue
		}
		if !c.interject(page) {
			return 3
		}
		next := ""
		if page+1 < len(pages) {
			next = fmt.Sprintf(`,"nextCursor":%q`, pageCursor(page+1))
		}
		var tools bytes.Buffer
		if err := json.Compact(&tools, []byte(pages[page])); err != nil {
			panic(err) // Pages is a constant
		}
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":%s%s}}`, m.ID, tools.Bytes(), next))
	}
}

// interject sends the server's own messages and requests before answering
// the given page, and checks the client's answers; false on a bad answer.
func (c *fakeConn) interject(page int) bool {
	switch page {
	case 1:
		c.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listing"}}`)
		c.send(`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
		if !c.expectAnswer(`"srv-1"`, true) {
			return false
		}
		c.send(`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}`)
		return c.expectAnswer(`7`, false)
	case 2:
		c.send(`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`)
		return c.expectAnswer(`8`, true)
	}
	return true
}

func pageCursor(page int) string { return fmt.Sprintf("cursor-%d", page) }

// startOrphan starts a sleeping copy of the test binary that shares the
// server's stdout and stderr (and process group), and records its pid.
func startOrphan() error {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), EnvVar+"="+Sleep)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	return os.WriteFile(os.Getenv(PidFileVar), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
}

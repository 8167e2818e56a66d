package mcpstdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/toolshelf/toolshelf/mcpconfig"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/registry"
)

// ProtocolVersion is the MCP revision [List] asks for in initialize.
const ProtocolVersion = "2025-06-18"

// KnownVersion reports whether v is a published MCP revision. [List]
// accepts a server that answers with another one (tools/list has not
// changed shape across revisions) and records it in [Listing].
func KnownVersion(v string) bool {
	switch v {
	case "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25":
		return true
	}
	return false
}

// Defaults of [Options].
const (
	DefaultMaxPages   = 100
	DefaultMaxMessage = 32 << 20
	DefaultStderrTail = 4 << 10
)

// maxServerRequests bounds the server-to-client requests answered in one
// listing: a server that keeps asking is not going to list its tools.
const maxServerRequests = 1000

// Options configures [List]. The zero value (or nil) uses the defaults.
type Options struct {
	// ClientVersion is sent as clientInfo.version (the name is "toolshelf");
	// empty sends "dev".
	ClientVersion string
	// Env is added to the current environment of the server process.
	Env []string
	// Dir is the server's working directory; empty is the current one.
	Dir string
	// MaxPages bounds the tools/list pages followed through nextCursor;
	// 0 means DefaultMaxPages.
	MaxPages int
	// MaxMessage bounds one JSON-RPC line from the server, in bytes; 0 means
	// DefaultMaxMessage.
	MaxMessage int
	// StderrTail is how many of the server's last stderr bytes are kept for
	// error messages; 0 means DefaultStderrTail.
	StderrTail int
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.ClientVersion == "" {
		r.ClientVersion = "dev"
	}
	if r.MaxPages <= 0 {
		r.MaxPages = DefaultMaxPages
	}
	if r.MaxMessage <= 0 {
		r.MaxMessage = DefaultMaxMessage
	}
	if r.StderrTail <= 0 {
		r.StderrTail = DefaultStderrTail
	}
	return r
}

// Listing is what a server said about itself and its tools.
type Listing struct {
	// ProtocolVersion is the revision the server chose in initialize.
	ProtocolVersion string
	// ServerName, ServerTitle, ServerDescription and ServerVersion are its
	// serverInfo.
	ServerName, ServerTitle, ServerDescription, ServerVersion string
	// Instructions are its initialize instructions, if any.
	Instructions string
	// Tools are the listed tools in the server's order, each a compact JSON
	// object holding only name, description, inputSchema and annotations,
	// members and schema keys in the server's order.
	Tools []json.RawMessage
	// Pages is the number of tools/list pages read.
	Pages int
}

// GroupName is the registry group name the server's tools take by default:
// [mcpconfig.GroupName] of its serverInfo name.
func (l *Listing) GroupName() string { return mcpconfig.GroupName(l.ServerName) }

// Description describes the server for the tool_search index, by
// [ServerDescription].
func (l *Listing) Description() string {
	return registry.ServerDescription(l.Instructions, l.ServerDescription, l.ServerTitle, l.ServerName)
}

// Catalog returns the listing as a catalog file, {"server", "description",
// "tools"}, the shape registry.ParseCatalog imports as one MCP server's
// group. An empty server takes [Listing.GroupName], an empty description
// [Listing.Description].
func (l *Listing) Catalog(server, description string) []byte {
	if server == "" {
		server = l.GroupName()
	}
	if description == "" {
		description = l.Description()
	}
	b := []byte(`{"server":`)
	b = jsonx.AppendString(b, server)
	b = append(b, `,"description":`...)
	b = jsonx.AppendString(b, description)
	b = append(b, `,"tools":[`...)
	for i, t := range l.Tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	return append(b, "]}"...)
}

// List starts argv as an MCP server over stdio, initializes a session,
// lists every tool and stops the server (its whole process group), whatever
// happened. The context bounds all of it: on its deadline the error wraps
// [ErrTimeout]. Other failures wrap [ErrCommand], [ErrStart], [ErrExited],
// [ErrProtocol] or [ErrRPC], name the stage, and quote the tail of the
// server's stderr when it wrote any.
func List(ctx context.Context, argv []string, opts *Options) (*Listing, error) {
	o := opts.withDefaults()
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("%w: empty command", ErrCommand)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	stderr := &tail{max: o.StderrTail}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
	if len(o.Env) > 0 {
		cmd.Env = append(os.Environ(), o.Env...)
	}
	cmd.Dir = o.Dir
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	// Wait returns this long after the server exits even when something it
	// started still holds its stderr open.
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		if ctx.Err() != nil {
			return nil, timeoutError(ctx, "starting the server", stderr)
		}
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	c := &conn{
		opts:   o,
		stdin:  inW,
		events: make(chan event),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
		stderr: stderr,
	}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	go c.read(outR)
	defer c.stop(cmd, outR)
	return c.session(ctx)
}

// conn is one running server. Only List's goroutine writes to stdin; the
// reader goroutine hands lines over on events.
type conn struct {
	opts     Options
	stdin    *os.File
	events   chan event
	done     chan struct{} // closed when List returns: the reader stops sending
	exited   chan struct{} // closed when the process has been waited for
	waitErr  error         // set before exited is closed
	stderr   *tail
	nextID   int
	asked    int   // server-to-client requests answered
	writeErr error // the first failed write to stdin
}

// event is one line of the server's stdout, or the end of it (err set).
type event struct {
	line []byte
	err  error
}

func (c *conn) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	// The bound is the larger of MaxMessage and the buffer's capacity.
	sc.Buffer(make([]byte, min(64<<10, c.opts.MaxMessage)), c.opts.MaxMessage)
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		select {
		case c.events <- event{line: line}:
		case <-c.done:
			return
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	select {
	case c.events <- event{err: err}:
	case <-c.done:
	}
}

// stop closes stdin (a polite server exits on it), gives the server a
// moment, then kills its process group and waits for it.
func (c *conn) stop(cmd *exec.Cmd, stdout *os.File) {
	c.stdin.Close()
	close(c.done)
	t := time.NewTimer(500 * time.Millisecond)
	select {
	case <-c.exited:
	case <-t.C:
	}
	t.Stop()
	killGroup(cmd) // also what the server started, which may outlive it
	<-c.exited
	stdout.Close() // ends a read blocked on a descendant's copy of the pipe
}

// session runs initialize, notifications/initialized and every tools/list
// page.
func (c *conn) session(ctx context.Context) (*Listing, error) {
	params := map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": "toolshelf", "version": c.opts.ClientVersion},
	}
	raw, err := c.call(ctx, "initialize", "initialize", params)
	if err != nil {
		return nil, err
	}
	var init struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      struct {
			Name        string `json:"name"`
			Title       string `json:"title"`
			Description string `json:"description"`
			Version     string `json:"version"`
		} `json:"serverInfo"`
		Instructions string `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &init); err != nil {
		return nil, c.protocolf("the initialize result is not an InitializeResult: %v", err)
	}
	if init.ProtocolVersion == "" {
		return nil, c.protocolf("the initialize result has no protocolVersion")
	}
	var caps struct {
		Tools json.RawMessage `json:"tools"`
	}
	json.Unmarshal(init.Capabilities, &caps) // absent or odd: only used in an error message
	l := &Listing{
		ProtocolVersion:   init.ProtocolVersion,
		ServerName:        init.ServerInfo.Name,
		ServerTitle:       init.ServerInfo.Title,
		ServerDescription: init.ServerInfo.Description,
		ServerVersion:     init.ServerInfo.Version,
		Instructions:      init.Instructions,
		Tools:             []json.RawMessage{},
	}
	c.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > c.opts.MaxPages {
			return nil, c.protocolf("tools/list still has a nextCursor after %d pages", c.opts.MaxPages)
		}
		stage := "tools/list"
		params := map[string]any{}
		if page > 1 {
			stage = fmt.Sprintf("tools/list page %d", page)
			params["cursor"] = cursor
		}
		raw, err := c.call(ctx, "tools/list", stage, params)
		if err != nil {
			if errors.Is(err, ErrRPC) && len(caps.Tools) == 0 {
				err = fmt.Errorf("%w (the server declares no tools capability)", err)
			}
			return nil, err
		}
		var res struct {
			Tools      json.RawMessage `json:"tools"`
			NextCursor *string         `json:"nextCursor"`
		}
		var tools []json.RawMessage
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, c.protocolf("the %s result is not a ListToolsResult: %v", stage, err)
		}
		if err := json.Unmarshal(res.Tools, &tools); err != nil || tools == nil {
			return nil, c.protocolf("the %s result has no \"tools\" array", stage)
		}
		for i, t := range tools {
			kept, err := trimTool(t)
			if err != nil {
				return nil, c.protocolf("%s, tool %d: %v", stage, i, err)
			}
			l.Tools = append(l.Tools, kept)
		}
		l.Pages = page
		if res.NextCursor == nil || *res.NextCursor == "" {
			return l, nil
		}
		cursor = *res.NextCursor
		if seen[cursor] {
			return nil, c.protocolf("tools/list returned nextCursor %q twice (pagination would never end)", clip(cursor, 40))
		}
		seen[cursor] = true
	}
}

// toolKeys are the members of a listed tool the registry reads. Others
// (title, outputSchema, _meta, icons, or a server's own defer_loading or
// tier, which are the harness's to set) are dropped.
func toolKept(key string) bool {
	switch key {
	case "name", "description", "inputSchema", "annotations":
		return true
	}
	return false
}

func trimTool(raw json.RawMessage) (json.RawMessage, error) {
	ms, err := jsonx.Members(raw)
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	kept := ms[:0]
	for _, m := range ms {
		if toolKept(m.Key) {
			kept = append(kept, m)
		}
	}
	return jsonx.AppendObject(nil, kept), nil
}

// message is any JSON-RPC 2.0 message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a request and returns its result, answering or ignoring
// whatever else the server sends meanwhile. stage names the wait in errors.
func (c *conn) call(ctx context.Context, method, stage string, params any) (json.RawMessage, error) {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	c.write(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	for {
		var ev event
		select {
		case <-ctx.Done():
			return nil, timeoutError(ctx, "waiting for the "+stage+" result", c.stderr)
		case ev = <-c.events:
		}
		if ev.err != nil {
			return nil, c.ended(ctx, stage, ev.err)
		}
		line := bytes.TrimSpace(ev.line)
		if len(line) == 0 {
			continue
		}
		msgs := []json.RawMessage{line}
		if line[0] == '[' { // a batch (2025-03-26)
			if err := json.Unmarshal(line, &msgs); err != nil {
				return nil, c.protocolf("while waiting for the %s result the server wrote a line that is not JSON: %q", stage, clip(string(line), 80))
			}
		}
		for _, raw := range msgs {
			res, done, err := c.handle(raw, id, method, stage)
			if err != nil || done {
				return res, err
			}
		}
	}
}

// handle deals with one message while waiting for response id. done is true
// when it was that response.
func (c *conn) handle(raw json.RawMessage, id, method, stage string) (json.RawMessage, bool, error) {
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false, c.protocolf("while waiting for the %s result the server wrote a line that is not a JSON-RPC message: %q", stage, clip(string(raw), 80))
	}
	if m.JSONRPC != "2.0" {
		return nil, false, c.protocolf("while waiting for the %s result the server wrote a message without \"jsonrpc\": \"2.0\": %q", stage, clip(string(raw), 80))
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method != nil && !hasID: // a notification: logging, progress, list_changed
		return nil, false, nil
	case m.Method != nil:
		c.answer(m.ID, *m.Method)
		if c.asked++; c.asked > maxServerRequests {
			return nil, false, c.protocolf("the server sent more than %d requests instead of answering %s", maxServerRequests, stage)
		}
		return nil, false, nil
	case m.Error != nil && (!hasID || string(m.ID) == id):
		return nil, true, c.errorf(ErrRPC, "the server answered %s with error %d: %s", stage, m.Error.Code, clip(m.Error.Message, 200))
	case string(m.ID) == id:
		if len(m.Result) == 0 || string(m.Result) == "null" {
			return nil, true, c.protocolf("the %s response has neither result nor error", stage)
		}
		return m.Result, true, nil
	case hasID:
		return nil, false, c.protocolf("while waiting for the %s result the server answered request id %s, which was never sent", stage, clip(string(m.ID), 40))
	}
	return nil, false, c.protocolf("while waiting for the %s result the server wrote a message that is neither request, notification nor response: %q", stage, clip(string(raw), 80))
}

// answer replies to a server-to-client request: ping and roots/list get
// empty results, anything else (sampling, elicitation) "method not found",
// so that the server never waits on us.
func (c *conn) answer(id json.RawMessage, method string) {
	reply := map[string]any{"jsonrpc": "2.0", "id": id}
	switch method {
	case "ping":
		reply["result"] = map[string]any{}
	case "roots/list":
		reply["result"] = map[string]any{"roots": []any{}}
	default:
		reply["error"] = map[string]any{"code": -32601, "message": "method not found: toolshelf only lists tools"}
	}
	c.write(reply)
}

// write sends one message. A failed write is remembered, not returned: the
// server's exit (seen on stdout) or the deadline makes the better error.
func (c *conn) write(v any) {
	if c.writeErr != nil {
		return
	}
	b, err := jsonx.Marshal(v)
	if err == nil {
		_, err = c.stdin.Write(append(b, '\n'))
	}
	if err != nil {
		c.writeErr = err
	}
}

// ended explains the end of stdout while waiting for stage.
func (c *conn) ended(ctx context.Context, stage string, err error) error {
	if err != io.EOF {
		if errors.Is(err, bufio.ErrTooLong) {
			return c.protocolf("while waiting for the %s result the server wrote a message longer than %d bytes", stage, c.opts.MaxMessage)
		}
		return c.errorf(ErrExited, "reading the server's stdout while waiting for the %s result: %v", stage, err)
	}
	select {
	case <-c.exited:
	case <-ctx.Done():
		return timeoutError(ctx, "waiting for the server to exit after it closed its stdout before the "+stage+" result", c.stderr)
	}
	how := "exit status 0"
	if c.waitErr != nil {
		how = c.waitErr.Error()
	}
	return c.errorf(ErrExited, "%s, before answering %s", how, stage)
}

func (c *conn) protocolf(format string, a ...any) error { return c.errorf(ErrProtocol, format, a...) }

// errorf wraps sentinel with the message and the stderr tail.
func (c *conn) errorf(sentinel error, format string, a ...any) error {
	return fmt.Errorf("%w: %s%s", sentinel, fmt.Sprintf(format, a...), c.stderr.suffix())
}

func timeoutError(ctx context.Context, stage string, stderr *tail) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w %s: %w%s", ErrTimeout, stage, ctx.Err(), stderr.suffix())
	}
	return fmt.Errorf("mcpstdio: %s: %w%s", stage, ctx.Err(), stderr.suffix())
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

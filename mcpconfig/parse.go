package mcpconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"unicode/utf8"
)

// ErrInvalid reports an mcpServers file that cannot be read as one: not
// JSON, too large, a key given twice, an unknown key, an entry that is
// neither a stdio nor an HTTP server, an unset variable.
var ErrInvalid = errors.New("mcpconfig: invalid mcpServers file")

// maxBytes bounds an mcpServers file: the ones in the wild are a few
// kilobytes.
const maxBytes = 1 << 20

// Options tune [Parse] and [Load]; nil is the zero Options.
type Options struct {
	// Getenv looks up the variables of ${VAR} and ${VAR:-default}. Nil is
	// os.LookupEnv.
	Getenv func(name string) (string, bool)
}

// A Server is one entry of an mcpServers file: a stdio server (Command
// set) or a streamable HTTP one (URL set), with ${VAR} references
// expanded.
type Server struct {
	// Name is the entry's key in the mcpServers object, as written.
	Name string
	// Disabled is "disabled": true (Cline, Roo Code): the entry is to be
	// left out. Only Name is set beside it; the rest of a disabled entry
	// is checked for its keys and their types, not for its meaning.
	Disabled bool
	// Command is the argv of a stdio server: command, then args.
	Command []string
	// Env is a stdio server's env, as "KEY=value", sorted by key.
	Env []string
	// Dir is a stdio server's cwd; empty is the caller's choice.
	Dir string
	// URL is an HTTP server's endpoint, http or https.
	URL string
	// Headers go with every request to an HTTP server; nil when there are
	// none.
	Headers http.Header
}

// knownKeys are the keys of an entry; ignoredKeys are other harnesses'
// per-server settings (approval lists, timeouts) that are accepted and not
// read.
var (
	knownKeys   = []string{"type", "command", "args", "env", "cwd", "url", "headers", "disabled"}
	ignoredKeys = []string{"alwaysAllow", "autoApprove", "timeout", "description"}
)

// Parse reads an mcpServers file and returns one [Server] per entry,
// sorted by name, disabled ones included (marked). A stdio entry ("type"
// absent or "stdio") has command, and may have args, env and cwd; an HTTP
// entry ("type" absent, "http" or "streamable-http") has url, and may have
// headers. The legacy HTTP+SSE transport ("type": "sse") is refused. Errors
// wrap [ErrInvalid].
func Parse(data []byte, opts *Options) ([]Server, error) {
	if opts == nil {
		opts = &Options{}
	}
	if len(data) > maxBytes {
		return nil, fmt.Errorf("%w: %d bytes; the limit is %d", ErrInvalid, len(data), maxBytes)
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil || file == nil {
		msg := "null"
		if err != nil {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%w: not a JSON object: %s", ErrInvalid, msg)
	}
	if err := duplicateKey(data); err != nil {
		return nil, err
	}
	raw, ok := file["mcpServers"]
	if !ok {
		return nil, fmt.Errorf("%w: no \"mcpServers\" object (keys: %s)", ErrInvalid, strings.Join(slices.Sorted(maps.Keys(file)), ", "))
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil || entries == nil {
		return nil, fmt.Errorf("%w: \"mcpServers\" is not an object of servers", ErrInvalid)
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	out := make([]Server, 0, len(entries))
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		srv, err := parseEntry(name, entries[name], getenv)
		if err != nil {
			return nil, fmt.Errorf("%w: mcpServers[%q]: %w", ErrInvalid, name, err)
		}
		out = append(out, srv)
	}
	return out, nil
}

// Load reads the mcpServers file at path with [Parse]. A regular file over
// the bound (1 MiB) is refused by its size before it is read, and whatever
// the file is (a pipe, a device, a file still growing) no more than the
// bound and one byte is read.
func Load(path string, opts *Options) ([]Server, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > maxBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes; the limit is %d", path, ErrInvalid, st.Size(), maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrInvalid, err)
	}
	if len(data) > maxBytes {
		return nil, fmt.Errorf("%s: %w: more than %d bytes; the limit is %d", path, ErrInvalid, maxBytes, maxBytes)
	}
	srvs, err := Parse(data, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return srvs, nil
}

// entry is an entry's fields, each read from its exact key.
type entry struct {
	typ, command, cwd, url string
	args                   []string
	env, headers           map[string]string
	disabled               bool
}

// readEntry reads raw's keys exactly: the key "command" and nothing else
// is the command.
func readEntry(raw json.RawMessage) (entry, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return entry{}, errors.New("want an object")
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if slices.Contains(knownKeys, k) || slices.Contains(ignoredKeys, k) {
			continue
		}
		for _, known := range append(slices.Clone(knownKeys), ignoredKeys...) {
			if strings.EqualFold(k, known) || foldKey(k) == foldKey(known) {
				return entry{}, fmt.Errorf("unknown key %q: keys are case-sensitive, write %q", k, known)
			}
		}
		return entry{}, fmt.Errorf("unknown key %q: want command, args, env, cwd (stdio) or url, headers (HTTP), type, disabled", k)
	}
	var e entry
	for _, f := range []struct {
		key string
		v   any
	}{
		{"type", &e.typ}, {"command", &e.command}, {"args", &e.args}, {"env", &e.env},
		{"cwd", &e.cwd}, {"url", &e.url}, {"headers", &e.headers}, {"disabled", &e.disabled},
	} {
		if v, ok := keys[f.key]; ok {
			if err := json.Unmarshal(v, f.v); err != nil {
				return entry{}, fmt.Errorf("%s: %v", f.key, err)
			}
		}
	}
	return e, nil
}

func parseEntry(name string, raw json.RawMessage, getenv func(string) (string, bool)) (Server, error) {
	e, err := readEntry(raw)
	if err != nil {
		return Server{}, err
	}
	if e.disabled {
		return Server{Name: name, Disabled: true}, nil
	}
	x := expander{getenv: getenv}
	srv := Server{Name: name}
	switch {
	case e.typ == "sse":
		return Server{}, errors.New(`"type": "sse" (the legacy HTTP+SSE transport) is not supported: use the server's streamable HTTP endpoint ("type": "http")`)
	case e.command != "" && e.url != "":
		return Server{}, errors.New("both command and url: a server is stdio (command) or HTTP (url)")
	case e.command != "":
		err = stdio(&srv, &e, &x)
	case e.url != "":
		err = httpServer(&srv, &e, &x)
	default:
		err = errors.New("neither command (stdio) nor url (HTTP)")
	}
	if err == nil {
		err = x.err
	}
	if err != nil {
		return Server{}, err
	}
	return srv, nil
}

func stdio(srv *Server, e *entry, x *expander) error {
	if e.typ != "" && e.typ != "stdio" {
		return fmt.Errorf("type %q with a command: want \"stdio\"", e.typ)
	}
	if len(e.headers) > 0 {
		return errors.New("headers belong to an HTTP server (url)")
	}
	srv.Command = append(srv.Command, x.expand(e.command, "command"))
	for i, a := range e.args {
		srv.Command = append(srv.Command, x.expand(a, fmt.Sprintf("args[%d]", i)))
	}
	for _, k := range slices.Sorted(maps.Keys(e.env)) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env key %q: want a variable name", k)
		}
		srv.Env = append(srv.Env, k+"="+x.expand(e.env[k], "env."+k))
	}
	srv.Dir = x.expand(e.cwd, "cwd")
	return nil
}

func httpServer(srv *Server, e *entry, x *expander) error {
	if e.typ != "" && e.typ != "http" && e.typ != "streamable-http" {
		return fmt.Errorf("type %q with a url: want \"http\"", e.typ)
	}
	if len(e.args) > 0 || len(e.env) > 0 || e.cwd != "" {
		return errors.New("args, env and cwd belong to a stdio server (command)")
	}
	srv.URL = x.expand(e.url, "url")
	if u, err := url.Parse(srv.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q: want an http or https URL", srv.URL)
	}
	for _, k := range slices.Sorted(maps.Keys(e.headers)) {
		v := x.expand(e.headers[k], "headers."+k)
		if !validHeader(k, v) {
			return fmt.Errorf("header %q: not a valid HTTP header", k)
		}
		if srv.Headers == nil {
			srv.Headers = http.Header{}
		}
		srv.Headers.Set(k, v)
	}
	return nil
}

// expander expands ${VAR} and ${VAR:-default}; the first unset variable
// without a default is its error.
type expander struct {
	getenv func(string) (string, bool)
	err    error
}

func (x *expander) expand(s, field string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		name, def, hasDef := strings.Cut(s[i+2:i+j], ":-")
		v, ok := x.getenv(name)
		switch {
		case ok:
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		case x.err == nil:
			x.err = fmt.Errorf("%s: ${%s} is not set and has no default (${%s:-default})", field, name, name)
		}
		s = s[i+j+1:]
	}
}

func validHeader(k, v string) bool {
	if k == "" || !utf8.ValidString(v) || strings.ContainsAny(v, "\r\n\x00") {
		return false
	}
	for _, c := range k {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, c) {
			return false
		}
	}
	return true
}

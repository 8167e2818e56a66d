package mcp

import (
	"bytes"
	"encoding/json"
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

// ConfigOptions tune [ParseConfig].
type ConfigOptions struct {
	// Getenv expands ${VAR} and ${VAR:-default} in command, args, env,
	// url and headers, as Claude Code does. Nil is os.LookupEnv.
	Getenv func(name string) (string, bool)
	// Dir is the working directory of every stdio server; empty is the
	// current one.
	Dir string
	// HTTPClient is the base client of HTTP servers (their headers are
	// added to each request); nil is http.DefaultClient.
	HTTPClient *http.Client
}

// configEntry is one server of an mcpServers file, as Claude Desktop,
// Claude Code, Cursor and others write it.
type configEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Disabled (Cline, Roo Code) leaves the server out.
	Disabled bool `json:"disabled"`
}

// ignoredKeys are other harnesses' per-server settings that toolshelf
// leaves to the harness: approval lists and timeouts.
var ignoredKeys = []string{"alwaysAllow", "autoApprove", "timeout", "description"}

// maxConfig bounds an mcpServers file: the ones in the wild are a few
// kilobytes.
const maxConfig = 1 << 20

// ParseConfig reads an mcpServers file — {"mcpServers": {"<name>":
// {"command", "args", "env"} or {"url", "headers", "type"}}}, the shape
// Claude Desktop, Claude Code and Cursor share — and returns one [Server]
// per entry, sorted by name, ready for [Manager.Start] or
// [Manager.Connect] (both take them all at once). A stdio entry ("type" absent or "stdio") runs command
// with args and env; an HTTP entry ("type" absent, "http" or
// "streamable-http") reaches url over streamable HTTP with headers on
// every request. "disabled": true leaves an entry out. A key given twice
// in one object, at any depth (a server name, "command", "args",
// "disabled", an env variable), is an error naming the key and both
// positions: readers disagree on which one counts. Errors wrap
// [ErrConfig] and name the server and the field; the legacy SSE transport
// ("type": "sse") is refused, since the Manager speaks streamable HTTP.
func ParseConfig(data []byte, opts *ConfigOptions) ([]Server, error) {
	if opts == nil {
		opts = &ConfigOptions{}
	}
	if len(data) > maxConfig {
		return nil, fmt.Errorf("%w: mcpServers file of %d bytes; the limit is %d", ErrConfig, len(data), maxConfig)
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object: %v", ErrConfig, err)
	}
	if err := duplicateKey(data); err != nil {
		return nil, err
	}
	raw, ok := file["mcpServers"]
	if !ok {
		return nil, fmt.Errorf("%w: no \"mcpServers\" object (keys: %s)", ErrConfig, strings.Join(slices.Sorted(maps.Keys(file)), ", "))
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil || entries == nil {
		return nil, fmt.Errorf("%w: \"mcpServers\" is not an object of servers", ErrConfig)
	}
	var out []Server
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		srv, skip, err := parseEntry(name, entries[name], opts)
		if err != nil {
			return nil, err
		}
		if !skip {
			out = append(out, srv)
		}
	}
	return out, nil
}

// LoadConfig reads the mcpServers file at path (see [ParseConfig]). A
// file over ParseConfig's bound (1 MiB) is refused before it is read (by
// its size), and whatever the file is (a pipe, a device, a file still
// growing), no more than the bound and one byte is read.
func LoadConfig(path string, opts *ConfigOptions) ([]Server, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > maxConfig {
		return nil, fmt.Errorf("%s: %w: mcpServers file of %d bytes; the limit is %d", path, ErrConfig, st.Size(), maxConfig)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfig+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if len(data) > maxConfig {
		return nil, fmt.Errorf("%s: %w: mcpServers file of more than %d bytes; the limit is %d", path, ErrConfig, maxConfig, maxConfig)
	}
	srvs, err := ParseConfig(data, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return srvs, nil
}

func parseEntry(name string, raw json.RawMessage, opts *ConfigOptions) (Server, bool, error) {
	fail := func(format string, a ...any) (Server, bool, error) {
		return Server{}, false, fmt.Errorf("%w: mcpServers[%q]: %s", ErrConfig, name, fmt.Sprintf(format, a...))
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return fail("want an object")
	}
	for k := range keys {
		switch k {
		case "type", "command", "args", "env", "cwd", "url", "headers", "disabled":
		default:
			if !slices.Contains(ignoredKeys, k) {
				return fail("unknown key %q: want command, args, env, cwd (stdio) or url, headers (HTTP), type, disabled", k)
			}
		}
	}
	var e configEntry
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&e); err != nil {
		return fail("%v", err)
	}
	if e.Disabled {
		return Server{}, true, nil
	}
	x := expander{getenv: opts.Getenv}
	if x.getenv == nil {
		x.getenv = os.LookupEnv
	}
	srv := Server{Name: name, Dir: opts.Dir}
	switch {
	case e.Type == "sse":
		return fail(`"type": "sse" (the legacy HTTP+SSE transport) is not supported: use the server's streamable HTTP endpoint ("type": "http")`)
	case e.Command != "" && e.URL != "":
		return fail("both command and url: a server is stdio (command) or HTTP (url)")
	case e.Command != "":
		if e.Type != "" && e.Type != "stdio" {
			return fail("type %q with a command: want \"stdio\"", e.Type)
		}
		if len(e.Headers) > 0 {
			return fail("headers belong to an HTTP server (url)")
		}
		srv.Command = append(srv.Command, x.expand(e.Command, "command"))
		for i, a := range e.Args {
			srv.Command = append(srv.Command, x.expand(a, fmt.Sprintf("args[%d]", i)))
		}
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return fail("env key %q: want a variable name", k)
			}
			srv.Env = append(srv.Env, k+"="+x.expand(e.Env[k], "env."+k))
		}
		if e.Cwd != "" {
			srv.Dir = x.expand(e.Cwd, "cwd")
		}
	case e.URL != "":
		if e.Type != "" && e.Type != "http" && e.Type != "streamable-http" {
			return fail("type %q with a url: want \"http\"", e.Type)
		}
		if len(e.Args) > 0 || len(e.Env) > 0 || e.Cwd != "" {
			return fail("args, env and cwd belong to a stdio server (command)")
		}
		srv.URL = x.expand(e.URL, "url")
		if u, err := url.Parse(srv.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("url %q: want an http or https URL", srv.URL)
		}
		h := http.Header{}
		for _, k := range slices.Sorted(maps.Keys(e.Headers)) {
			v := x.expand(e.Headers[k], "headers."+k)
			if !validHeader(k, v) {
				return fail("header %q: not a valid HTTP header", k)
			}
			h.Set(k, v)
		}
		if len(h) > 0 {
			srv.HTTPClient = withHeaders(opts.HTTPClient, h)
		} else {
			srv.HTTPClient = opts.HTTPClient
		}
	default:
		return fail("neither command (stdio) nor url (HTTP)")
	}
	if x.err != nil {
		return fail("%v", x.err)
	}
	if err := srv.check(); err != nil {
		return Server{}, false, err
	}
	return srv, false, nil
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
		ref := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(ref, ":-")
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

// withHeaders returns a client that sets h on every request, over base.
func withHeaders(base *http.Client, h http.Header) *http.Client {
	c := http.Client{}
	if base != nil {
		c = *base
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = headerTransport{next: next, h: h}
	return &c
}

type headerTransport struct {
	next http.RoundTripper
	h    http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.next.RoundTrip(r)
}

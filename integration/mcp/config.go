package mcp

import (
	"fmt"
	"net/http"

	"github.com/toolshelf/toolshelf/mcpconfig"
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

// ParseConfig reads an mcpServers file — {"mcpServers": {"<name>":
// {"command", "args", "env"} or {"url", "headers", "type"}}}, the shape
// Claude Desktop, Claude Code and Cursor share — with the project's one
// reader of the format, [mcpconfig.Parse], and returns one [Server] per
// entry, sorted by name, ready for [Manager.Start] or [Manager.Connect]
// (both take them all at once). A stdio entry ("type" absent or "stdio")
// runs command with args and env; an HTTP entry ("type" absent, "http" or
// "streamable-http") reaches url over streamable HTTP with headers on
// every request. "disabled": true leaves an entry out. A key given twice
// in one object, at any depth and in any case or escaped spelling (a
// server name, "command" beside "Command", an env variable), is an error
// naming the key and both positions: readers disagree on which one
// counts. Errors wrap [ErrConfig] and [mcpconfig.ErrInvalid] and name the
// server and the field; the legacy SSE transport ("type": "sse") is
// refused, since the Manager speaks streamable HTTP.
func ParseConfig(data []byte, opts *ConfigOptions) ([]Server, error) {
	if opts == nil {
		opts = &ConfigOptions{}
	}
	entries, err := mcpconfig.Parse(data, &mcpconfig.Options{Getenv: opts.Getenv})
	if err != nil {
		return nil, configError{err}
	}
	return servers(entries, opts)
}

// LoadConfig reads the mcpServers file at path with [mcpconfig.Load] (see
// [ParseConfig]): a file over the bound (1 MiB) is refused before it is
// read (by its size), and whatever the file is (a pipe, a device, a file
// still growing), no more than the bound and one byte is read.
func LoadConfig(path string, opts *ConfigOptions) ([]Server, error) {
	if opts == nil {
		opts = &ConfigOptions{}
	}
	entries, err := mcpconfig.Load(path, &mcpconfig.Options{Getenv: opts.Getenv})
	if err != nil {
		return nil, configError{err}
	}
	srvs, err := servers(entries, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return srvs, nil
}

// configError is an mcpconfig error that matches [ErrConfig] too, with
// mcpconfig's message alone.
type configError struct{ err error }

func (e configError) Error() string   { return e.err.Error() }
func (e configError) Unwrap() []error { return []error{ErrConfig, e.err} }

// servers turns the file's enabled entries into Servers the Manager
// checks.
func servers(entries []mcpconfig.Server, opts *ConfigOptions) ([]Server, error) {
	var out []Server
	for _, e := range entries {
		if e.Disabled {
			continue
		}
		srv := Server{Name: e.Name, Command: e.Command, Env: e.Env, Dir: opts.Dir, URL: e.URL}
		if e.Dir != "" {
			srv.Dir = e.Dir
		}
		if e.URL != "" {
			srv.HTTPClient = opts.HTTPClient
			if len(e.Headers) > 0 {
				srv.HTTPClient = withHeaders(opts.HTTPClient, e.Headers)
			}
		}
		if err := srv.check(); err != nil {
			return nil, err
		}
		out = append(out, srv)
	}
	return out, nil
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

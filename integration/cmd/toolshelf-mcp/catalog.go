package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/toolshelf/toolshelf/mcpconfig"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolshelf/toolshelf/integration/mcp"
	"github.com/toolshelf/toolshelf/registry"
)

type catalogOptions struct {
	stdio, url        string
	name, description string
	out               string
	timeout           time.Duration
	// resident leaves the tools unmarked instead of "defer_loading": true.
	resident bool
}

// catalog lists one server and returns its catalog file, indented, ending
// in a newline.
func catalog(ctx context.Context, o catalogOptions) ([]byte, error) {
	var srv mcp.Server
	var seen *serverInfo
	switch {
	case o.stdio != "" && o.url != "":
		return nil, fmt.Errorf("%w: give --mcp-stdio or --mcp-http, not both", errUsage)
	case o.stdio != "":
		argv, err := mcpconfig.SplitCommand(o.stdio)
		if err != nil {
			return nil, fmt.Errorf("--mcp-stdio: %w", err)
		}
		// The go-sdk's stdio transport, as integration/mcp's Manager builds
		// it for a Command, reached through Server.Transport so that the
		// serverInfo name can name the group when --name is empty.
		seen = &serverInfo{}
		base := mcp.Server{Command: argv}
		srv = mcp.Server{Transport: func() sdk.Transport { return seen.wrap(stdioTransport(base.Command)) }}
	case o.url != "":
		srv = mcp.Server{URL: o.url}
	default:
		return nil, errUsage
	}
	raw, err := liveCatalog(ctx, o, srv, seen)
	if err != nil {
		return nil, err
	}
	// The catalog is parsed back before it is written, so that a file this
	// command writes is one every toolshelf command reads.
	if _, err := registry.ParseCatalog(raw); err != nil {
		return nil, fmt.Errorf("the listed tools: %w", err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// liveCatalog connects srv with the go-sdk client through an
// [mcp.Manager] and returns its group as a compact catalog file. The group
// is --name, else the serverInfo name of a stdio server, else "server".
func liveCatalog(ctx context.Context, o catalogOptions, srv mcp.Server, seen *serverInfo) ([]byte, error) {
	const provisional = "server"
	srv.Name, srv.Description, srv.Stderr = provisional, o.description, io.Discard
	reg := registry.New(nil)
	m := mcp.New(reg, nil)
	defer m.Close()
	if err := m.Connect(ctx, srv); err != nil {
		if o.url != "" {
			return nil, fmt.Errorf("--mcp-http %q: %w", o.url, err)
		}
		return nil, fmt.Errorf("--mcp-stdio %q: %w", o.stdio, err)
	}
	name := o.name
	if name == "" {
		name = provisional
		if seen != nil {
			name = mcpconfig.GroupName(seen.name())
		}
	}
	snap := reg.Snapshot()
	type wireTool struct {
		Name        string                `json:"name"`
		Description string                `json:"description,omitempty"`
		InputSchema json.RawMessage       `json:"inputSchema"`
		Annotations *registry.Annotations `json:"annotations,omitempty"`
		Defer       bool                  `json:"defer_loading,omitempty"`
	}
	out := struct {
		Server      string     `json:"server"`
		Description string     `json:"description"`
		Tools       []wireTool `json:"tools"`
	}{Server: name, Tools: []wireTool{}}
	if g, ok := snap.Group(provisional); ok {
		out.Description = g.Description
	}
	for _, t := range snap.Tools() {
		if t.Group == provisional {
			out.Tools = append(out.Tools, wireTool{t.OriginalName, t.Description, t.RawSchema, t.Annotations, !o.resident})
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// serverInfo records the serverInfo name a server gives in its initialize
// result, read off the connection as the client receives it.
type serverInfo struct {
	mu sync.Mutex
	n  string
}

func (s *serverInfo) name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *serverInfo) wrap(t sdk.Transport) sdk.Transport { return sniffTransport{t, s} }

type sniffTransport struct {
	sdk.Transport
	s *serverInfo
}

func (t sniffTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return sniffConn{c, t.s}, nil
}

type sniffConn struct {
	sdk.Connection
	s *serverInfo
}

func (c sniffConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil && len(r.Result) > 0 {
		var res struct {
			ServerInfo *struct {
				Name string `json:"name"`
			} `json:"serverInfo"`
		}
		if json.Unmarshal(r.Result, &res) == nil && res.ServerInfo != nil {
			c.s.mu.Lock()
			if c.s.n == "" {
				c.s.n = res.ServerInfo.Name
			}
			c.s.mu.Unlock()
		}
	}
	return msg, err
}

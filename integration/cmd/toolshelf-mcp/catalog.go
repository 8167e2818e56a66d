package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/toolshelf/toolshelf/integration/mcp"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
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

// deferMark is what marks a listed tool deferred in the catalog file.
const deferMark = `,"defer_loading":true`

// catalog lists one server and returns its catalog file, indented, ending
// in a newline.
func catalog(ctx context.Context, o catalogOptions) ([]byte, error) {
	var raw []byte
	switch {
	case o.stdio != "" && o.url != "":
		return nil, fmt.Errorf("%w: give --mcp-stdio or --mcp-http, not both", errUsage)
	case o.stdio != "":
		// The core's lister: the one command splitter and stdio client
		// `toolshelf budget --mcp-stdio` uses.
		argv, err := mcpstdio.SplitCommand(o.stdio)
		if err != nil {
			return nil, fmt.Errorf("--mcp-stdio: %w", err)
		}
		l, err := mcpstdio.List(ctx, argv, nil)
		if err != nil {
			return nil, fmt.Errorf("--mcp-stdio %q: %w", o.stdio, err)
		}
		if !o.resident {
			// Each listed tool is one compact JSON object: the mark goes
			// before its closing brace, after the server's own members.
			for i, t := range l.Tools {
				l.Tools[i] = append(append(t[:len(t)-1:len(t)-1], deferMark...), '}')
			}
		}
		raw = l.Catalog(o.name, o.description)
	case o.url != "":
		var err error
		if raw, err = httpCatalog(ctx, o); err != nil {
			return nil, err
		}
	default:
		return nil, errUsage
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

// httpCatalog connects to a streamable HTTP server with the go-sdk client
// through an [mcp.Manager] and returns its group as a compact catalog file.
func httpCatalog(ctx context.Context, o catalogOptions) ([]byte, error) {
	name := o.name
	if name == "" {
		name = "server"
	}
	reg := registry.New(nil)
	m := mcp.New(reg, nil)
	defer m.Close()
	if err := m.Connect(ctx, mcp.Server{Name: name, Description: o.description, URL: o.url, Stderr: io.Discard}); err != nil {
		return nil, fmt.Errorf("--mcp-http %q: %w", o.url, err)
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
	if g, ok := snap.Group(name); ok {
		out.Description = g.Description
	}
	for _, t := range snap.Tools() {
		if t.Group == name {
			out.Tools = append(out.Tools, wireTool{t.OriginalName, t.Description, t.RawSchema, t.Annotations, !o.resident})
		}
	}
	return jsonx.Marshal(out)
}

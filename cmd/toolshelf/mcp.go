package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/toolshelf/toolshelf/mcpconfig"
	"runtime/debug"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/internal/engine/mcpstdio"
	"github.com/toolshelf/toolshelf/registry"
)

// mcpServerJSON is budget's --json report of the live server --mcp-stdio
// listed.
type mcpServerJSON struct {
	// Command is the argv that was run.
	Command []string `json:"command"`
	// Name is the registry group (--name, or derived from ServerName).
	Name string `json:"name"`
	// Description is the group's description in the tool_search index.
	Description     string `json:"description"`
	ServerName      string `json:"server_name"`
	ServerTitle     string `json:"server_title"`
	ServerVersion   string `json:"server_version"`
	ProtocolVersion string `json:"protocol_version"`
	Tools           int    `json:"tools"`
	Pages           int    `json:"pages"`
}

// addMCPServer starts the stdio MCP server of line, lists its tools within
// timeout and adds them to reg as the group name (empty: derived from the
// server's serverInfo name), deferred by default. Errors are one line
// naming the command and what failed.
func addMCPServer(reg *registry.Registry, line, name string, timeout time.Duration) (*mcpServerJSON, error) {
	argv, err := mcpconfig.SplitCommand(line)
	if err != nil {
		return nil, fmt.Errorf("--mcp-stdio: %s", strings.TrimPrefix(err.Error(), "mcpconfig: "))
	}
	return addStdioServer(reg, argv, nil, "", fmt.Sprintf("--mcp-stdio %q", line), name, timeout)
}

// addStdioServer is addMCPServer for a command already split, with env
// added to the environment and dir the working directory; what names the
// server in errors ("--mcp-stdio LINE", an --mcp-config entry).
func addStdioServer(reg *registry.Registry, argv, env []string, dir, what, name string, timeout time.Duration) (*mcpServerJSON, error) {
	if name != "" {
		if err := registry.New(nil).AddGroup(registry.Group{Name: name}); err != nil {
			return nil, fmt.Errorf("--name: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	l, err := mcpstdio.List(ctx, argv, &mcpstdio.Options{ClientVersion: version(), Env: env, Dir: dir})
	if err != nil {
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "mcpstdio: "), "mcpconfig: ")
		switch {
		case errors.Is(err, mcpstdio.ErrTimeout):
			msg += fmt.Sprintf(" (--timeout %s; a first npx run downloads the package: raise it)", timeout)
		case errors.Is(err, mcpstdio.ErrStart) && strings.Contains(argv[0], "="):
			msg += " (no shell is run: set environment variables with env NAME=value COMMAND ...)"
		}
		return nil, fmt.Errorf("%s: %s", what, msg)
	}
	if name == "" {
		name = l.GroupName()
	}
	c, err := registry.ParseCatalog(l.Catalog(name, ""))
	if err != nil {
		return nil, fmt.Errorf("%s: the listed tools: %w", what, err)
	}
	// A live server carries no defer_loading marks: the question asked of it
	// is what deferring it would save, so its group defers by default
	// (--rules NoDefer(...) keeps a tool resident).
	if err := reg.AddGroup(registry.Group{Name: name, Description: c.Description, DefaultDefer: registry.DeferTrue}); err != nil {
		if errors.Is(err, registry.ErrDuplicateGroup) {
			return nil, fmt.Errorf("%s: a --catalog or an earlier --mcp-stdio already holds the group %q: pass --name to give the server another (the first --name names the first --mcp-stdio ...)", what, name)
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := reg.Import(c); err != nil {
		return nil, fmt.Errorf("%s: the listed tools: %w", what, err)
	}
	return &mcpServerJSON{
		Command: argv, Name: name, Description: c.Description,
		ServerName: l.ServerName, ServerTitle: l.ServerTitle, ServerVersion: l.ServerVersion,
		ProtocolVersion: l.ProtocolVersion, Tools: len(c.Tools), Pages: l.Pages,
	}, nil
}

// version is the module version the binary was built from, sent as the MCP
// clientInfo version.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/mcpconfig"
	"github.com/toolshelf/toolshelf/registry"
)

// mcpConfigTimeout bounds starting and listing each --mcp-config server
// of request and search (budget has --timeout).
const mcpConfigTimeout = 60 * time.Second

// addMCPConfig starts and lists every stdio server of the mcpServers file
// at path, each as the group of its entry's name (deferred by default),
// in name order. The file is read by mcpconfig.Load, the reader
// integration/mcp's LoadConfig uses too: both read the same servers from
// one file. HTTP entries, which the CLI does not reach, and disabled ones
// are returned as skipped, with why.
func addMCPConfig(reg *registry.Registry, path string, timeout time.Duration) (servers []*mcpServerJSON, skipped []string, err error) {
	entries, err := mcpconfig.Load(path, nil)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), path+": ")
		msg = strings.TrimPrefix(msg, mcpconfig.ErrInvalid.Error()+": ")
		if strings.HasPrefix(msg, `no "mcpServers" object`) {
			msg += "; a tools list goes to --catalog"
		}
		return nil, nil, fmt.Errorf("--mcp-config %s: %s", path, msg)
	}
	for _, e := range entries {
		switch {
		case e.Disabled:
			skipped = append(skipped, e.Name+": disabled")
			continue
		case e.URL != "":
			skipped = append(skipped, e.Name+": an HTTP server, which the command-line tool does not reach (integration/mcp.Manager does)")
			continue
		}
		what := fmt.Sprintf("--mcp-config %s: mcpServers[%q]", path, e.Name)
		s, err := addStdioServer(reg, e.Command, e.Env, e.Dir, what, e.Name, timeout)
		if err != nil {
			return nil, nil, err
		}
		servers = append(servers, s)
	}
	return servers, skipped, nil
}

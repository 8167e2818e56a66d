package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/registry"
)

// mcpConfigEntry is one server of an mcpServers file, the shape Claude
// Desktop, Claude Code and Cursor share, read as integration/mcp's
// ParseConfig reads it (the CLI is in the core module and cannot import
// it): a stdio server has command, args, env and cwd; an HTTP one url.
type mcpConfigEntry struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cwd      string            `json:"cwd"`
	URL      string            `json:"url"`
	Disabled bool              `json:"disabled"`
}

// mcpConfigTimeout bounds starting and listing each --mcp-config server
// of request and search (budget has --timeout).
const mcpConfigTimeout = 60 * time.Second

// maxMCPConfig bounds an mcpServers file, as integration/mcp does.
const maxMCPConfig = 1 << 20

// addMCPConfig starts and lists every stdio server of the mcpServers file
// at path, each as the group of its entry's name (deferred by default),
// in name order. HTTP entries, which the CLI does not reach, and disabled
// ones are returned as skipped, with why.
func addMCPConfig(reg *registry.Registry, path string, timeout time.Duration) (servers []*mcpServerJSON, skipped []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--mcp-config: %v", err)
	}
	if len(data) > maxMCPConfig {
		return nil, nil, fmt.Errorf("--mcp-config %s: %d bytes; the limit is %d", path, len(data), maxMCPConfig)
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, fmt.Errorf("--mcp-config %s: not a JSON object: %v", path, err)
	}
	raw, ok := file["mcpServers"]
	if !ok {
		return nil, nil, fmt.Errorf("--mcp-config %s: no \"mcpServers\" object (keys: %s); a tools list goes to --catalog", path, strings.Join(slices.Sorted(maps.Keys(file)), ", "))
	}
	var entries map[string]mcpConfigEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, fmt.Errorf("--mcp-config %s: \"mcpServers\": %v", path, err)
	}
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		e := entries[name]
		what := fmt.Sprintf("--mcp-config %s: mcpServers[%q]", path, name)
		switch {
		case e.Disabled:
			skipped = append(skipped, name+": disabled")
			continue
		case e.Type != "" && e.Type != "stdio" || e.Command == "" && e.URL != "":
			skipped = append(skipped, name+": an HTTP server, which the command-line tool does not reach (integration/mcp.Manager does)")
			continue
		case e.Command == "":
			return nil, nil, fmt.Errorf("%s: no \"command\"", what)
		}
		argv := append([]string{expandEnv(e.Command)}, e.Args...)
		for i := 1; i < len(argv); i++ {
			argv[i] = expandEnv(argv[i])
		}
		var env []string
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			env = append(env, k+"="+expandEnv(e.Env[k]))
		}
		s, err := addStdioServer(reg, argv, env, expandEnv(e.Cwd), what, name, timeout)
		if err != nil {
			return nil, nil, err
		}
		servers = append(servers, s)
	}
	return servers, skipped, nil
}

// expandEnv expands ${VAR} and ${VAR:-default}, as Claude Code and
// integration/mcp do; anything else is left as written.
func expandEnv(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return b.String() + s
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return b.String() + s
		}
		b.WriteString(s[:i])
		name, def, hasDef := strings.Cut(s[i+2:i+j], ":-")
		if v, ok := os.LookupEnv(name); ok {
			b.WriteString(v)
		} else if hasDef {
			b.WriteString(def)
		}
		s = s[i+j+1:]
	}
}

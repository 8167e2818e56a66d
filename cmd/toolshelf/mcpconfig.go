package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
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
	data, err := readBounded(path, maxMCPConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("--mcp-config %s: %v", path, err)
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, fmt.Errorf("--mcp-config %s: not a JSON object: %v", path, err)
	}
	// integration/mcp.ParseConfig refuses a key given twice: readers
	// disagree on which one counts, so a reviewer may read another command
	// than the one that runs.
	if err := duplicateKey(data, "", 0); err != nil {
		return nil, nil, fmt.Errorf("--mcp-config %s: %v", path, err)
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

// readBounded reads the file at path, refusing one over max bytes before
// reading it (by its size) and reading no more than max+1 bytes whatever it
// is (a pipe, a device, a file still growing).
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > max {
		return nil, fmt.Errorf("%d bytes; the limit is %d", st.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("over %d bytes; the limit is %d", max, max)
	}
	return data, nil
}

// maxConfigDepth bounds the nesting duplicateKey walks; an mcpServers file
// needs four levels.
const maxConfigDepth = 64

// duplicateKey reports the first key given twice in one object of the
// JSON value v, at any depth, with the JSON pointer of that object.
func duplicateKey(v []byte, at string, depth int) error {
	if depth > maxConfigDepth {
		return errors.New("nested deeper than 64 levels")
	}
	switch s := strings.TrimLeft(string(v[:min(len(v), 64)]), " \t\r\n"); {
	case strings.HasPrefix(s, "{"):
		seen := map[string]bool{}
		return jsonx.EachMember(v, func(key, val []byte) error {
			k := string(key)
			if seen[k] {
				where := at
				if where == "" {
					where = "/"
				}
				return fmt.Errorf("key %q given twice in one object (at %s): write it once", k, where)
			}
			seen[k] = true
			return duplicateKey(val, at+"/"+k, depth+1)
		})
	case strings.HasPrefix(s, "["):
		i := 0
		return jsonx.EachElement(v, func(val []byte) error {
			err := duplicateKey(val, fmt.Sprintf("%s/%d", at, i), depth+1)
			i++
			return err
		})
	}
	return nil
}

// Package shortname holds the short names of MCP tools: what is left of an
// exposed name mcp__<server>__<tool> once the server's prefix is taken off.
// The index lists a server's tools by their short names under the server's
// header line, and tool_search and defer_execute take a short name back to
// the one tool it names, or answer with the candidates when it names several.
//
// One rule serves the index and both entry tools: a short name stands for a
// tool only when no visible tool has it as its full name and no other
// visible MCP tool has the same short name. The index lists the full name of
// a tool whose short name fails the rule, so every name it lists resolves to
// the tool listed, and a full name always means itself.
package shortname

import (
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// Of returns t's short name: its exposed name without "mcp__<server>__"
// (an alias keeps that prefix whole, so it has one too). It reports false
// for a tool that has none: not an MCP tool, or one whose remainder starts
// with "mcp__", which reads as another server's full name and so is only
// ever called by its own full name.
func Of(t *registry.Tool) (string, bool) {
	if t == nil || t.Source != registry.SourceMCP {
		return "", false
	}
	short, ok := strings.CutPrefix(t.Name, toolname.MCPPrefix+t.Group+"__")
	if !ok || short == "" || strings.HasPrefix(short, toolname.MCPPrefix) {
		return "", false
	}
	return short, true
}

// A Table holds the full and short names of a set of visible tools. It is
// built once (per plan) and read concurrently.
type Table struct {
	full  map[string]bool
	short map[string][]string // short name → full names, sorted
}

// New builds the table of tools, plus reserved full names no tool of the
// set carries (the entry tools).
func New(tools []*registry.Tool, reserved ...string) *Table {
	tb := &Table{full: make(map[string]bool, len(tools)+len(reserved)), short: make(map[string][]string, len(tools))}
	for _, n := range reserved {
		tb.full[n] = true
	}
	for _, t := range tools {
		if t == nil {
			continue
		}
		tb.full[t.Name] = true
		if s, ok := Of(t); ok {
			tb.short[s] = append(tb.short[s], t.Name)
		}
	}
	for _, names := range tb.short {
		slices.Sort(names)
	}
	return tb
}

// Listed returns the name the index lists for t: its short name when that
// resolves to t alone, its full name otherwise.
func (tb *Table) Listed(t *registry.Tool) string {
	s, ok := Of(t)
	if !ok || tb.full[s] || len(tb.short[s]) != 1 {
		return t.Name
	}
	return s
}

// Candidates returns the full names of the tools whose short name is name,
// sorted: none when name is a full name of the table (a full name always
// means itself) or nobody's short name, one when it resolves, several when
// it is ambiguous. The slice is the table's own; do not modify it.
func (tb *Table) Candidates(name string) []string {
	if tb.full[name] {
		return nil
	}
	return tb.short[name]
}

// Match returns the full names among names (a session's visible names, in
// any order) of MCP tools whose short name is short, sorted. lookup returns
// the tool of a name. It is [Table.Candidates] for a set that changes
// during a session, computed on the spot; it does not check whether short
// is itself one of names.
func Match(short string, names []string, lookup func(string) (*registry.Tool, bool)) []string {
	if short == "" || strings.HasPrefix(short, toolname.MCPPrefix) {
		return nil
	}
	var out []string
	suffix := "__" + short
	for _, n := range names {
		if !strings.HasPrefix(n, toolname.MCPPrefix) || !strings.HasSuffix(n, suffix) {
			continue
		}
		if t, ok := lookup(n); ok {
			if s, ok := Of(t); ok && s == short {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

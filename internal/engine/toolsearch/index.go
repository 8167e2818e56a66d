package toolsearch

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/tagsafe"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Tags of the index block.
const (
	indexOpen  = "<available_deferred_tools>"
	indexClose = "</available_deferred_tools>"
)

// indexGroup is one group of the index: its lines and how many tools it names.
type indexGroup struct {
	lines []string
	tools int
}

func (g indexGroup) chars() int {
	n := 0
	for _, l := range g.lines {
		n += utf8.RuneCountInString(l) + 1
	}
	return n
}

// buildIndex renders the <available_deferred_tools> block.
//
// Layout: the built-in group's deferred names first, sorted, one per line and
// no header (self-built tools known when the plan was made join them, since
// they too are called by their plain names); then one group per MCP server in
// name order: a header "mcp__<server>: <description>" and the server's
// deferred tools by their short names (the exposed name without
// "mcp__<server>__"), indented two spaces. A tool whose short name would
// not resolve to it alone (another visible tool has it as its full or its
// short name) is listed by its full name, so every listed name resolves to
// the tool listed (package shortname).
//
// A server gets a group when it has deferred tools, or when it has no tools
// at all (connected but empty, or still listing), so that the model knows it
// exists. A server whose tools are all resident or hidden gets none: its
// resident tools are in tools[] already, and hidden ones must not leak.
//
// The budget (characters of the lines between the tags) is spent group by
// group. The built-in group is always listed: it is the harness's own and
// small. An MCP group that does not fit is dropped whole; later, smaller
// groups may still fit. When a group was dropped, one coordinate line closes
// the block. Names are never cut; descriptions are.
func buildIndex(plan *deferral.Plan, o *search.Options) string {
	snap := plan.Snapshot()
	short := shortTable(plan)
	var plain []string
	byServer := map[string][]string{}
	for _, t := range plan.Deferred() {
		if t.Source == registry.SourceMCP {
			byServer[t.Group] = append(byServer[t.Group], short.Listed(t))
			continue
		}
		plain = append(plain, t.Name)
	}
	slices.Sort(plain)
	hasTools := map[string]bool{}
	for _, t := range snap.Tools() {
		hasTools[t.Group] = true
	}
	var groups []indexGroup
	for _, g := range snap.Groups() {
		if g.Source != registry.SourceMCP {
			continue
		}
		names := byServer[g.Name]
		if len(names) == 0 && hasTools[g.Name] {
			continue
		}
		slices.Sort(names)
		header := toolname.MCPPrefix + g.Name + ":"
		if d := sanitize(g.Description, o.DescriptionLimit); d != "" {
			header += " " + d
		}
		lines := []string{header}
		for _, n := range names {
			lines = append(lines, "  "+n)
		}
		groups = append(groups, indexGroup{lines: lines, tools: len(names)})
	}

	var b strings.Builder
	b.WriteString(indexOpen)
	b.WriteByte('\n')
	used := 0
	for _, n := range plain {
		b.WriteString(n)
		b.WriteByte('\n')
		used += utf8.RuneCountInString(n) + 1
	}
	droppedServers, droppedTools := 0, 0
	for _, g := range groups {
		c := g.chars()
		if used+c > o.IndexBudget {
			droppedServers++
			droppedTools += g.tools
			continue
		}
		used += c
		for _, l := range g.lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	if droppedServers > 0 {
		fmt.Fprintf(&b, "[other %d MCP %s with %d %s can be found in %s. Use tool_search to discover and invoke them.]\n",
			droppedServers, plural(droppedServers, "server", "servers"), droppedTools, plural(droppedTools, "tool", "tools"), o.Where)
	}
	b.WriteString(indexClose)
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sanitize makes a server description safe for a header line: whitespace
// (newlines included) collapsed, every wrapper tag neutralized by the
// library's one neutraliser (package tagsafe: any case, spaced forms,
// Unicode spaces and invisible characters), then cut to limit runes with
// "…".
func sanitize(s string, limit int) string {
	return truncate(tagsafe.Neutralize(collapse(strings.ToValidUTF8(s, ""))), limit)
}

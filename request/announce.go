package request

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// maxAnnouncedNames bounds how many names of each kind one tools-changed
// announcement lists; the rest are counted ("and 12 more").
const maxAnnouncedNames = 40

// ToolsChange describes tools that changed during a session: an MCP
// server that connected late, reconnected or sent tools/list_changed with
// different tools. [Session.Sync] returns one for everything it adopted
// (Server empty) and announces it to the model; integration/mcp's Change
// embeds one for one server.
type ToolsChange struct {
	// Server is the group (MCP server) whose tools changed.
	Server string
	// Added, Removed and Changed are full tool names (mcp__server__tool).
	Added, Removed, Changed []string
}

// checkToolsChange validates the names of c: a tools-changed announcement
// read back from stored state (a session of an earlier version queued it
// with the AnnounceToolsChanged it had; Sync announces changes itself).
func checkToolsChange(c ToolsChange) error {
	if !toolname.Valid(c.Server) {
		return fmt.Errorf("%w: ToolsChange.Server %q must match ^[a-zA-Z0-9_-]{1,64}$", ErrInvalidMessage, c.Server)
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"Added", c.Added}, {"Removed", c.Removed}, {"Changed", c.Changed}} {
		for i, n := range l.names {
			if !toolname.Valid(n) {
				return fmt.Errorf("%w: ToolsChange.%s[%d] %q must match ^[a-zA-Z0-9_-]{1,64}$", ErrInvalidMessage, l.field, i, n)
			}
		}
	}
	return nil
}

// The labels of a tools-changed block. Each says what happened and what
// the model can do now, in words that a later block never contradicts.
const (
	labelNew       = "New on the server (not yet usable in this session; a <new_deferred_tool> block will say when one is)"
	labelRemoved   = "Removed from the server (do not call them)"
	labelChanged   = "Changed on the server (calls keep the definition you have seen until an update is announced)"
	labelLeft      = "Removed (no longer offered by the server; a call answers that the tool was removed; do not call them)"
	labelBack      = "Available again (call them as before: a tool in your tool list directly, a deferred tool with defer_execute after loading its schema with tool_search)"
	labelUpdated   = "Updated (the definition changed: load the new schema with tool_search before calling)"
	labelAlsoNew   = "Also new (deferred: load the schema with tool_search, then call with defer_execute)"
	changeBlockEnd = "\n</tools_changed>"
)

// changeLine is one labelled list of names in a tools-changed block.
type changeLine struct {
	label string
	names []string
}

// announceChange renders the block; names are sorted and bounded, so the
// same change gives the same bytes whatever order it was reported in.
func announceChange(c ToolsChange) string {
	return changeBlock(c.Server, changeLine{labelNew, c.Added}, changeLine{labelRemoved, c.Removed}, changeLine{labelChanged, c.Changed})
}

// changeBlock renders a tools-changed block of server with lines.
func changeBlock(server string, lines ...changeLine) string {
	var b strings.Builder
	b.WriteString("<tools_changed server=\"")
	b.WriteString(server)
	b.WriteString("\">\nThe tools of server ")
	b.WriteString(server)
	b.WriteString(" changed during this session.")
	writeChangeLines(&b, lines)
	b.WriteString(changeBlockEnd)
	return b.String()
}

// writeChangeLines writes the labelled lines of a tools-changed block,
// each sorted and bounded to maxAnnouncedNames names.
func writeChangeLines(b *strings.Builder, lines []changeLine) {
	for _, l := range lines {
		if len(l.names) == 0 {
			continue
		}
		names := slices.Compact(slices.Sorted(slices.Values(l.names)))
		b.WriteString("\n")
		b.WriteString(l.label)
		b.WriteString(": ")
		shown := names[:min(len(names), maxAnnouncedNames)]
		b.WriteString(strings.Join(shown, ", "))
		if n := len(names) - len(shown); n > 0 {
			fmt.Fprintf(b, " and %d more", n)
		}
	}
}

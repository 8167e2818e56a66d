package request

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// maxAnnouncedNames bounds how many names of each kind one tools-changed
// announcement lists; the rest are counted ("and 12 more").
const maxAnnouncedNames = 40

// ToolsChange describes a tool source whose tools changed during a
// session: an MCP server that reconnected or sent tools/list_changed with
// different tools. integration/mcp's Change embeds it, so a Manager's
// change is announced as it comes.
type ToolsChange struct {
	// Server is the group (MCP server) whose tools changed.
	Server string
	// Added, Removed and Changed are full tool names (mcp__server__tool).
	Added, Removed, Changed []string
}

// AnnounceToolsChanged queues a block telling the model that a server's
// tools changed, sent like a self-built tool's announcement: at the front
// of the next user message (or after the next tool results), append-only.
// The prefix and the tool_search index stay as they are — the session is
// frozen on its snapshot — and catch up at the next session: added tools
// are not callable in this one, removed tools answer as their server does
// (unavailable), changed tools keep the definition this session was built
// with. A change with nothing added, removed or changed queues nothing.
//
// Names are validated (^[a-zA-Z0-9_-]{1,64}$, as registered); an invalid
// server or tool name is an error wrapping [ErrInvalidMessage] and queues
// nothing.
func (s *Session) AnnounceToolsChanged(c ToolsChange) error {
	if err := checkToolsChange(c); err != nil {
		return err
	}
	if len(c.Added)+len(c.Removed)+len(c.Changed) == 0 {
		return nil
	}
	block := announceChange(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, note{text: block, data: noteState{ToolsChanged: &changeState{
		Server: c.Server, Added: slices.Clone(c.Added), Removed: slices.Clone(c.Removed), Changed: slices.Clone(c.Changed),
	}}})
	return nil
}

// checkToolsChange validates the names of c.
func checkToolsChange(c ToolsChange) error {
	if !registry.ValidName(c.Server) {
		return fmt.Errorf("%w: ToolsChange.Server %q must match ^[a-zA-Z0-9_-]{1,64}$", ErrInvalidMessage, c.Server)
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"Added", c.Added}, {"Removed", c.Removed}, {"Changed", c.Changed}} {
		for i, n := range l.names {
			if !registry.ValidName(n) {
				return fmt.Errorf("%w: ToolsChange.%s[%d] %q must match ^[a-zA-Z0-9_-]{1,64}$", ErrInvalidMessage, l.field, i, n)
			}
		}
	}
	return nil
}

// announceChange renders the block; names are sorted and bounded, so the
// same change gives the same bytes whatever order it was reported in.
func announceChange(c ToolsChange) string {
	var b strings.Builder
	b.WriteString("<tools_changed server=\"")
	b.WriteString(c.Server)
	b.WriteString("\">\nThe tools of server ")
	b.WriteString(c.Server)
	b.WriteString(" changed during this session.")
	line := func(label string, names []string) {
		if len(names) == 0 {
			return
		}
		names = slices.Compact(slices.Sorted(slices.Values(names)))
		b.WriteString("\n")
		b.WriteString(label)
		b.WriteString(": ")
		shown := names[:min(len(names), maxAnnouncedNames)]
		b.WriteString(strings.Join(shown, ", "))
		if n := len(names) - len(shown); n > 0 {
			fmt.Fprintf(&b, " and %d more", n)
		}
	}
	line("New (not callable in this session; available in the next one)", c.Added)
	line("Removed (calls will fail; do not use them)", c.Removed)
	line("Changed (this session keeps the definition it started with)", c.Changed)
	b.WriteString("\n</tools_changed>")
	return b.String()
}

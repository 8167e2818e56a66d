package registry

import "strings"

// ServerDescription is the one rule by which an MCP server describes its
// group in the tool_search index ([Group.Description]): its initialize
// instructions, else its serverInfo description, title or name, the first
// that is not blank, trimmed. The version is left out on purpose: an
// upgrade that changes nothing else must not change the index. A harness
// with its own MCP client describes groups the same way with it.
func ServerDescription(instructions, description, title, name string) string {
	for _, s := range []string{instructions, description, title, name} {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

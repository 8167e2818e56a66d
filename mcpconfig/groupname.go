package mcpconfig

import "strings"

// maxGroupName bounds a derived group name, leaving room in the 64-byte
// exposed name mcp__<group>__<tool> for the tool's own name.
const maxGroupName = 24

// GroupName turns a serverInfo name into a registry group name: the part
// after the last "/" (npm-style names such as "mcp-servers/everything" give
// "everything"), every byte outside [a-zA-Z0-9_-] replaced by "-", runs of
// "-" and "_" collapsed to their first byte (a group name may not contain
// "__"), trimmed of "-" and "_" at both ends, and cut to 24 bytes. A name
// that comes out empty, or as one of the registry's own groups ("builtin",
// "self-built"), gives "server".
func GroupName(serverName string) string {
	s := strings.TrimSpace(serverName)
	if i := strings.LastIndexByte(s, '/'); i >= 0 && strings.TrimSpace(s[i+1:]) != "" {
		s = s[i+1:]
	}
	var b strings.Builder
	var prev byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			c = '-'
		}
		if (c == '-' || c == '_') && (prev == '-' || prev == '_') {
			continue
		}
		b.WriteByte(c)
		prev = c
	}
	out := strings.Trim(b.String(), "-_")
	if len(out) > maxGroupName {
		out = strings.TrimRight(out[:maxGroupName], "-_")
	}
	switch out {
	case "", "builtin", "self-built":
		return "server"
	}
	return out
}

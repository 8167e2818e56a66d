package execute

import (
	"strconv"
	"strings"
)

// String returns the event as one readable line, e.g.
//
//	denied ImageGen via defer_execute by Deny(ImageGen) (session s1, call toolu_01)
//	searched tool_search queries ["create pull request"] loaded [mcp__github__create_pull_request] (session s1)
//
// Fields that are empty are left out; the model-written ones (tool name,
// queries) are quoted when they hold anything but name characters, so a
// line never breaks.
func (ev Event) String() string {
	var b strings.Builder
	b.WriteString(string(ev.Kind))
	b.WriteByte(' ')
	b.WriteString(word(ev.Tool))
	if ev.Via != "" {
		b.WriteString(" via ")
		b.WriteString(ev.Via)
	}
	if ev.Rule != "" {
		b.WriteString(" by ")
		b.WriteString(ev.Rule)
	}
	if ev.Hook != "" {
		b.WriteString(" hook ")
		b.WriteString(strconv.Quote(ev.Hook))
	}
	if ev.Pointer != "" {
		b.WriteString(" at ")
		b.WriteString(strconv.Quote(ev.Pointer))
	}
	if ev.Kind == EventSearched {
		b.WriteString(" queries [")
		for i, q := range ev.Queries {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(q))
		}
		b.WriteString("] loaded [")
		for i, n := range ev.Loaded {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(word(n))
		}
		b.WriteByte(']')
	}
	if ev.Detail != "" {
		b.WriteString(": ")
		b.WriteString(strconv.Quote(ev.Detail))
	}
	if ev.Session != "" || ev.CallID != "" {
		b.WriteString(" (")
		if ev.Session != "" {
			b.WriteString("session ")
			b.WriteString(word(ev.Session))
		}
		if ev.CallID != "" {
			if ev.Session != "" {
				b.WriteString(", ")
			}
			b.WriteString("call ")
			b.WriteString(word(ev.CallID))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// word returns s as is when it is a plain name, else quoted: "" and names
// with spaces, quotes or control characters stay one token.
func word(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r == ':' || r == '/' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return strconv.Quote(s)
		}
	}
	return s
}

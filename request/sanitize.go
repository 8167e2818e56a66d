package request

import (
	"github.com/toolshelf/toolshelf/internal/jsonx"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxAnnouncedDescription bounds, in runes, the description a self-built
// tool's announcement carries; the full description stays searchable.
const MaxAnnouncedDescription = 200

// The tags this library wraps model-facing text in. Text from outside — a
// user's message, a description the model wrote — never gets to open or
// close one of them.
const (
	tagUserQuery    = "user_query"
	tagNewDeferred  = "new_deferred_tool"
	tagToolsChanged = "tools_changed"
	tagIndex        = "available_deferred_tools"
)

// tagAt reports whether s, which starts with '<', opens or closes a
// wrapper tag: "<", optional spaces, an optional "/", optional spaces,
// then the tag's name in any case, not followed by a name character.
func tagAt(s string) bool {
	i := 1
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '/' {
		i++
		for i < len(s) && isSpace(s[i]) {
			i++
		}
	}
	s = s[i:]
	return nameIs(s, tagUserQuery) || nameIs(s, tagNewDeferred) || nameIs(s, tagToolsChanged) || nameIs(s, tagIndex)
}

// nameIs reports whether s starts with the tag name t in any case, not
// followed by a name character.
func nameIs(s, t string) bool {
	if len(s) < len(t) || !strings.EqualFold(s[:len(t)], t) {
		return false
	}
	return len(s) == len(t) || !isNameByte(s[len(t)])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == ':' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// appendQueryBody appends the JSON string body of a user's text with the
// '<' of every wrapper tag (user_query, new_deferred_tool, tools_changed,
// available_deferred_tools) written as "&lt;": the text reads the same to
// a model, cannot close the wrapper it is sent in nor open a new one, and
// cannot pass for one of the host's blocks. Text without '<' costs one
// scan.
func appendQueryBody(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			return jsonx.AppendStringBody(b, s)
		}
		if tagAt(s[i:]) {
			b = jsonx.AppendStringBody(b, s[:i])
			b = append(b, "&lt;"...)
		} else {
			b = jsonx.AppendStringBody(b, s[:i+1])
		}
		s = s[i+1:]
	}
}

// neutralize returns s with the '<' of every wrapper tag (user_query,
// new_deferred_tool, tools_changed, available_deferred_tools) written as
// "&lt;".
func neutralize(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var sb strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		sb.WriteString(s[:i])
		if tagAt(s[i:]) {
			sb.WriteString("&lt;")
		} else {
			sb.WriteByte('<')
		}
		s = s[i+1:]
	}
}

// announcedDescription is a model-written description made safe for an
// announcement block: its first non-empty line, control characters as
// spaces, at most MaxAnnouncedDescription runes (cut on a rune, "…"
// marking the cut), wrapper tags neutralized.
func announcedDescription(d string) string {
	d = strings.TrimSpace(d)
	if i := strings.IndexAny(d, "\r\n\u2028\u2029\u0085"); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	d = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, d)
	if utf8.RuneCountInString(d) > MaxAnnouncedDescription {
		n := 0
		for i := range d {
			if n == MaxAnnouncedDescription-1 {
				d = strings.TrimSpace(d[:i]) + "…"
				break
			}
			n++
		}
	}
	return neutralize(d)
}

package request

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/tagsafe"
)

// maxAnnouncedDescription bounds, in runes, the description a self-built
// tool's announcement carries; the full description stays searchable.
const maxAnnouncedDescription = 200

// appendQueryBody appends the JSON string body of a user's text with the
// '<' of every wrapper tag (user_query, new_deferred_tool, tools_changed,
// available_deferred_tools; in any case, with any spaces or invisible
// characters inside: see package tagsafe) written as "&lt;": the text reads
// the same to a model, cannot close the wrapper it is sent in nor open a
// new one, and cannot pass for one of the host's blocks. Text without '<'
// costs one scan.
func appendQueryBody(b []byte, s string) []byte {
	for {
		i := tagsafe.Index(s)
		if i < 0 {
			return jsonx.AppendStringBody(b, s)
		}
		b = jsonx.AppendStringBody(b, s[:i])
		b = append(b, tagsafe.Lt...)
		s = s[i+1:]
	}
}

// announcedDescription is a model-written description made safe for an
// announcement block: its first non-empty line, control characters as
// spaces, at most maxAnnouncedDescription runes (cut on a rune, "…"
// marking the cut), wrapper tags neutralized (package tagsafe).
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
	if utf8.RuneCountInString(d) > maxAnnouncedDescription {
		n := 0
		for i := range d {
			if n == maxAnnouncedDescription-1 {
				d = strings.TrimSpace(d[:i]) + "…"
				break
			}
			n++
		}
	}
	return tagsafe.Neutralize(d)
}

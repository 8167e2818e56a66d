// Package wire reads request bodies — the bytes on the wire — after the
// fact: where two bodies part ([Diff]), which JSON section a byte sits in
// ([PathAt]), and how long a body's cacheable prefix is ([PrefixLen]); and
// the providers' rule book ([Rules], [Check] and its [Violation]s) with the
// limits it shares with request ([MaxDescription], [MaxChatTools]; the
// name length is internal/engine/toolname's).
//
// It is internal: request encodes by the rule book and renders it in
// docs/providers.md, request/requesttest builds its assertions
// (CheckProviderRules, AssertStablePrefix ...) on it, and the CLI's diff
// and request commands and the examples read bodies with it. It does not
// link package testing.
package wire

import (
	"fmt"
	"strconv"
)

// excerpt is how many bytes of context a [Difference] shows on each side.
const excerpt = 40

// Difference is where two request bodies part.
type Difference struct {
	// Offset is the first differing byte (the shorter length when one body
	// is a prefix of the other).
	Offset int
	// Path is the JSON path, in the first body, of the innermost value
	// holding Offset: "tools[3].function.description", "messages[2]".
	// Empty when the bodies differ at the top level.
	Path string
	// A and B are short excerpts of each body around Offset.
	A, B string
}

// String reports the difference in one readable paragraph.
func (d *Difference) String() string {
	if d == nil {
		return "no difference"
	}
	path := d.Path
	if path == "" {
		path = "(top level)"
	}
	return fmt.Sprintf("bodies differ at byte %d, in %s:\n  a: %s\n  b: %s", d.Offset, path, strconv.Quote(d.A), strconv.Quote(d.B))
}

// Diff returns where a and b first differ, or nil when they are equal.
func Diff(a, b []byte) *Difference {
	n := min(len(a), len(b))
	off := n
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			off = i
			break
		}
	}
	if off == n && len(a) == len(b) {
		return nil
	}
	src := a
	if off >= len(a) {
		src = b
	}
	return &Difference{Offset: off, Path: PathAt(src, off), A: around(a, off), B: around(b, off)}
}

func around(b []byte, off int) string {
	lo, hi := max(0, off-excerpt), min(len(b), off+excerpt)
	if lo > hi {
		return ""
	}
	return string(b[lo:hi])
}

// PrefixLen returns the length of a request body's cacheable prefix: every
// byte before the first conversation message — model, extra fields,
// system and tools (for OpenAI Chat, the leading system messages too). It
// returns -1 when body is not a request this library knows.
func PrefixLen(body []byte) int {
	i := skipWS(body, 0)
	if i >= len(body) || body[i] != '{' {
		return -1
	}
	found := -1
	eachMember(body, i, func(key string, _, v, _ int) bool {
		if key != "messages" && key != "input" && key != "contents" {
			return true
		}
		found = v
		return false
	})
	if found < 0 || found >= len(body) || body[found] != '[' {
		return -1
	}
	// Skip leading system messages (OpenAI Chat keeps system in messages).
	pos := skipWS(body, found+1)
	for pos < len(body) && body[pos] == '{' {
		end := valueEnd(body, pos)
		system := false
		eachMember(body, pos, func(key string, _, v, e int) bool {
			if key == "role" {
				system = string(body[v:e]) == `"system"`
				return false
			}
			return true
		})
		if !system {
			break
		}
		pos = skipWS(body, end)
		if pos < len(body) && body[pos] == ',' {
			pos = skipWS(body, pos+1)
		}
	}
	return pos
}

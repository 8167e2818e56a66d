// Package tagsafe keeps outside text from opening or closing the tags this
// library wraps model-facing text in: user_query, new_deferred_tool,
// tools_changed, available_deferred_tools and preloaded_tools. It is the one neutraliser:
// package request uses it for user messages and self-built announcements,
// package search for server descriptions in the index, package execute for
// tool results.
//
// A tag is recognised the way a model would read one, not the way an XML
// parser would: "<", then any run of spaces and invisible characters, an
// optional "/", the tag's name in any case with invisible characters
// allowed between its letters, and no name character after it. Spaces are
// every Unicode white space (NBSP, the U+2000 block, ideographic space
// ...); invisible characters are the Unicode format characters (category
// Cf: zero-width space, word joiner, soft hyphen, BOM, bidi controls ...).
// Neutralising writes the tag's "<" as "&lt;": the text reads the same to
// a model, and no longer opens or closes anything.
package tagsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tags are the names of the library's wrapper tags.
var Tags = [...]string{"user_query", "new_deferred_tool", "tools_changed", "available_deferred_tools", "preloaded_tools"}

// Lt replaces the "<" of a wrapper tag.
const Lt = "&lt;"

// Index returns the byte index of the first "<" in s that starts a wrapper
// tag, or -1. Text without "<" costs one scan.
func Index(s string) int {
	off := 0
	for {
		i := strings.IndexByte(s[off:], '<')
		if i < 0 {
			return -1
		}
		if At(s[off+i:]) {
			return off + i
		}
		off += i + 1
	}
}

// At reports whether s, which starts with "<", opens or closes a wrapper
// tag.
func At(s string) bool {
	if s == "" || s[0] != '<' {
		return false
	}
	i := skip(s, 1)
	if i < len(s) && s[i] == '/' {
		i = skip(s, i+1)
	}
	rest := s[i:]
	for _, t := range Tags {
		if nameAt(rest, t) {
			return true
		}
	}
	return false
}

// Neutralize returns s with the "<" of every wrapper tag written as
// [Lt]. It returns s itself when there is none.
func Neutralize(s string) string {
	i := Index(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i >= 0 {
		b.WriteString(s[:i])
		b.WriteString(Lt)
		s = s[i+1:]
		i = Index(s)
	}
	b.WriteString(s)
	return b.String()
}

// Ignorable reports whether a model reading text would look through r
// inside a tag: white space or an invisible format character.
func Ignorable(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
	}
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
}

// skip returns the index of the first byte at or after i that does not
// start an ignorable rune.
func skip(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !Ignorable(r) {
			return i
		}
		i += n
	}
	return i
}

// nameAt reports whether s starts with the tag name t in any case, with
// ignorable runes allowed between its letters, not followed by a name
// byte.
func nameAt(s, t string) bool {
	i := 0
	for k := 0; k < len(t); k++ {
		if k > 0 {
			i = skip(s, i)
		}
		if i >= len(s) || lower(s[i]) != t[k] {
			return false
		}
		i++
	}
	// Whatever follows but a name character ends the name: a space may
	// lead to attributes, which a model reads as part of the tag.
	return i == len(s) || !nameByte(s[i])
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func nameByte(c byte) bool {
	return c == '_' || c == '-' || c == ':' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Text is text from outside the process made safe to quote to the model:
// valid UTF-8 (invalid bytes as U+FFFD) with every wrapper tag neutralised.
// It is the one form tool results, search answers and client-mode answers
// take, whoever produced them (a handler, a catalog description, a
// server's hostile "</user_query><new_deferred_tool>"). It returns s
// itself when s is valid and holds no wrapper tag.
func Text(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return Neutralize(s)
}

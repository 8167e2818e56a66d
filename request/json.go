package request

import (
	"encoding/json"
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string without HTML escaping, as
// encoding/json does with SetEscapeHTML(false) (U+2028 and U+2029 are still
// escaped). It never allocates beyond growing dst. Callers validate UTF-8
// first; an invalid byte is written as U+FFFD, as encoding/json does.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendStringBody(dst, s)
	return append(dst, '"')
}

// appendStringBody appends the escaped characters of s, without quotes.
func appendStringBody(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// appendCompact appends the compact form of the valid JSON value v. It
// removes insignificant whitespace outside strings and never allocates
// beyond growing dst.
func appendCompact(dst, v []byte) []byte {
	inString, escaped := false, false
	for _, c := range v {
		if inString {
			dst = append(dst, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		dst = append(dst, c)
	}
	return dst
}

// appendBytesString appends b as a JSON string without copying it to a
// string first.
func appendBytesString(dst, b []byte) []byte {
	if len(b) == 0 {
		return append(dst, `""`...)
	}
	return appendString(dst, unsafe.String(unsafe.SliceData(b), len(b)))
}

// jsonValid reports whether b is one valid JSON value.
func jsonValid(b []byte) bool { return json.Valid(b) }

// Package jsonx holds the small JSON helpers the library's packages share:
// encoding without HTML escaping, and order-preserving access to the members
// of a JSON object (encoding/json's maps would lose the source's key order,
// and with it byte stability).
package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Marshal is json.Marshal without HTML escaping and without a trailing
// newline: "<" stays "<".
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json encodes
// it with SetEscapeHTML(false) — "<" stays "<", U+2028 and U+2029 are
// escaped, invalid UTF-8 becomes U+FFFD — without allocating beyond
// growing dst. Every string the library emits goes through it, so a string
// has the same bytes whichever path encodes it.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendStringBody(dst, s)
	return append(dst, '"')
}

// AppendStringBody appends the escaped characters of s, without quotes.
func AppendStringBody(dst []byte, s string) []byte {
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
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
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

// Member is one key/value pair of a JSON object, value kept raw.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members returns the members of the JSON object obj in source order. A key
// that appears twice is an error: its meaning would depend on the decoder.
func Members(obj []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, got %v", tok)
	}
	var out []Member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		out = append(out, Member{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON object")
	}
	return out, nil
}

// Get returns the raw value of key in obj's members, or nil.
func Get(ms []Member, key string) json.RawMessage {
	for _, m := range ms {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// WithoutMembers returns the JSON object obj without its top-level members
// named keys, compacted; obj itself when it has none of them or is not an
// object.
func WithoutMembers(obj []byte, keys ...string) []byte {
	ms, err := Members(obj)
	drop := func(m Member) bool { return slices.Contains(keys, m.Key) }
	if err != nil || !slices.ContainsFunc(ms, drop) {
		return obj
	}
	return AppendObject(nil, slices.DeleteFunc(ms, drop))
}

// AppendObject appends members as a compact JSON object, in the given order.
// Values are compacted.
func AppendObject(dst []byte, ms []Member) []byte {
	dst = append(dst, '{')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, m.Key)
		dst = append(dst, ':')
		dst = AppendCompact(dst, m.Value)
	}
	return append(dst, '}')
}

// AppendCompact appends the compact form of the valid JSON value v: it
// drops insignificant white space outside strings and keeps every other
// byte (key order, escapes) as it is, without allocating beyond growing
// dst. Callers validate v first.
func AppendCompact(dst, v []byte) []byte {
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

// DeeperThan reports whether raw JSON bytes nest objects and arrays deeper
// than max, in one linear scan that parses nothing (and checks no syntax):
// the bound that keeps a recursive parser of untrusted input off a deep
// stack.
func DeeperThan(b []byte, max int) bool {
	depth, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			if depth > max {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

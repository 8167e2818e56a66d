// Package jsonx holds the small JSON helpers the library's packages share:
// encoding without HTML escaping, and order-preserving access to the members
// of a JSON object (encoding/json's maps would lose the source's key order,
// and with it byte stability).
package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// AppendString appends s as a JSON string without HTML escaping. Invalid
// UTF-8 is replaced by U+FFFD, as encoding/json does.
func AppendString(dst []byte, s string) []byte {
	b, _ := Marshal(s) // a string always marshals
	return append(dst, b...)
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

// AppendCompact appends the compact form of the JSON value v. If v is not
// valid JSON it is appended as is; callers validate first.
func AppendCompact(dst []byte, v []byte) []byte {
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, v); err != nil {
		return append(dst, v...)
	}
	return buf.Bytes()
}

package jsonx

import (
	"encoding/json"
	"errors"
	"unicode"
	"unicode/utf8"
)

// errScan reports bytes that are not the JSON value a scan expected.
var errScan = errors.New("jsonx: not a well-formed JSON value")

// EachMember calls fn with each member of the JSON object obj, in order:
// its key (unescaped; valid only during the call) and its raw value. It
// reads obj once, does not allocate unless a key has escapes, and stops at
// fn's first error. obj should be valid JSON; other bytes give an error or
// members of no meaning, never a panic.
func EachMember(obj []byte, fn func(key, value []byte) error) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errScan
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return errScan
		}
		end, escaped := scanString(obj, i)
		key := obj[i+1 : max(i+1, end-1)]
		// encoding/json reads an escape, and writes an invalid UTF-8 byte
		// as U+FFFD: the key is the one it decodes.
		if escaped || !utf8.Valid(key) {
			var s string
			if json.Unmarshal(obj[i:end], &s) != nil {
				return errScan
			}
			key = []byte(s)
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return errScan
		}
		start := skipSpace(obj, i+1)
		end, err := skipValue(obj, start)
		if err != nil {
			return err
		}
		if err := fn(key, obj[start:end]); err != nil {
			return err
		}
		i = skipSpace(obj, end)
		if i < len(obj) && obj[i] == '}' {
			return nil
		}
		if i >= len(obj) || obj[i] != ',' {
			return errScan
		}
		i = skipSpace(obj, i+1)
	}
	return errScan
}

// EachElement calls fn with each element of the JSON array arr, in order,
// under the same terms as [EachMember].
func EachElement(arr []byte, fn func(value []byte) error) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return errScan
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return nil
	}
	for i < len(arr) {
		end, err := skipValue(arr, i)
		if err != nil {
			return err
		}
		if err := fn(arr[i:end]); err != nil {
			return err
		}
		i = skipSpace(arr, end)
		if i < len(arr) && arr[i] == ']' {
			return nil
		}
		if i >= len(arr) || arr[i] != ',' {
			return errScan
		}
		i = skipSpace(arr, i+1)
	}
	return errScan
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string that starts at b[i] (a
// quote) and whether it has escapes.
func scanString(b []byte, i int) (int, bool) {
	escaped := false
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i + 1, escaped
		}
	}
	return len(b), escaped
}

// skipValue returns the index after the value that starts at b[i]. It
// keeps a depth count, not a stack: nesting costs nothing.
func skipValue(b []byte, i int) (int, error) {
	depth := 0
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, errScan
		}
		switch b[i] {
		case '"':
			i, _ = scanString(b, i)
		case '{', '[':
			depth++
			i++
			continue
		case '}', ']':
			depth--
			i++
		case ',', ':':
			if depth == 0 {
				return i, errScan
			}
			i++
			continue
		default:
			j := i
			for j < len(b) && !isDelim(b[j]) {
				j++
			}
			i = max(j, i+1)
		}
		if depth <= 0 {
			if depth < 0 {
				return i, errScan
			}
			return i, nil
		}
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// FoldEqual reports whether key and name are equal under the case folding
// encoding/json applies when it matches an object key to a struct field
// (each rune mapped through unicode.ToUpper(unicode.ToLower(r)), so that
// "TYPE", "Type" and "\u017fession" match "type" and "session"). A key that
// is FoldEqual to a field's name but not equal to it is a key
// encoding/json would read as that field while a provider does not.
func FoldEqual(key []byte, name string) bool {
	i, j := 0, 0
	for i < len(key) && j < len(name) {
		a, n := foldRune(key[i:])
		b, m := foldRuneString(name[j:])
		if a != b {
			return false
		}
		i, j = i+n, j+m
	}
	return i == len(key) && j == len(name)
}

func foldRune(b []byte) (rune, int) {
	if c := b[0]; c < utf8.RuneSelf {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		return rune(c), 1
	}
	r, n := utf8.DecodeRune(b)
	return unicode.ToUpper(unicode.ToLower(r)), n
}

func foldRuneString(s string) (rune, int) {
	if c := s[0]; c < utf8.RuneSelf {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		return rune(c), 1
	}
	r, n := utf8.DecodeRuneInString(s)
	return unicode.ToUpper(unicode.ToLower(r)), n
}

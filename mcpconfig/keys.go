package mcpconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// duplicateKey returns an error for the first key given twice in one
// object of data, at any depth, naming the key, where it is and both
// positions (line:column). Two keys are the same when they decode to
// strings equal under simple case folding: encoding/json keeps the last of
// two equal keys silently and matches a struct field whatever the key's
// case, while a reviewer, and other harnesses' readers, may take the first
// or the exact one, so "command" given twice, or beside "Command", would
// run another program than the one a reader of the file saw. data that is
// not JSON returns nil (Parse reports that); the walk is iterative, so
// nesting costs no stack.
func duplicateKey(data []byte) error {
	type seen struct {
		key string
		at  int64
	}
	type frame struct {
		keys    map[string]seen // by folded key; nil for an array
		path    string
		wantKey bool
		key     string
		n       int // the index of an array's next element
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.keys != nil {
			return top.path + "/" + pointerToken(top.key)
		}
		return top.path + "/" + strconv.Itoa(top.n)
	}
	done := func() { // a value of the top frame ended
		if len(stack) == 0 {
			return
		}
		if top := stack[len(stack)-1]; top.keys != nil {
			top.wantKey = true
		} else {
			top.n++
		}
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or a syntax error Parse reports
		}
		if n := len(stack); n > 0 && stack[n-1].keys != nil && stack[n-1].wantKey {
			top := stack[n-1]
			k, isKey := tok.(string)
			if !isKey { // the object's "}"
				stack = stack[:n-1]
				done()
				continue
			}
			at := keyStart(data, before)
			fk := foldKey(k)
			if prev, dup := top.keys[fk]; dup {
				return duplicateError(data, top.path, prev.key, k, prev.at, at)
			}
			top.keys[fk], top.key, top.wantKey = seen{k, at}, k, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]seen{}, path: child(), wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: child()})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			done()
		}
	}
}

func duplicateError(data []byte, path, first, second string, at1, at2 int64) error {
	where := path
	if where == "" {
		where = "the top level"
	}
	if first == second {
		return fmt.Errorf("%w: key %q given twice in one object (at %s): at %s and at %s; JSON readers disagree on which one counts, so remove one", ErrInvalid, first, where, position(data, at1), position(data, at2))
	}
	return fmt.Errorf("%w: keys %q and %q differ only in case in one object (at %s): at %s and at %s; JSON readers disagree on which one counts, so keep one, spelled as documented", ErrInvalid, first, second, where, position(data, at1), position(data, at2))
}

// foldKey maps every rune of k to the smallest rune of its simple case
// folding orbit, so that two keys strings.EqualFold calls equal ("K",
// "k" and the Kelvin sign; "s" and "ſ") map to the same string.
func foldKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// keyStart returns the offset of the key's opening quote: after the
// previous token come white space and a comma.
func keyStart(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
		off++
	}
	return off
}

// position writes a byte offset of data as line:column (1-based; the
// column counts bytes).
func position(data []byte, off int64) string {
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d column %d", line, col)
}

// pointerToken writes a key as a JSON pointer token (RFC 6901).
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

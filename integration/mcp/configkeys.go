package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// duplicateKey returns an error for the first key given twice in one
// object of data, at any depth, naming the key, where it is and both
// positions (line:column). encoding/json keeps the last of two equal keys
// silently, while a reviewer, and other harnesses' readers, may take the
// first: "command" given twice would run another program than the one a
// reader of the file saw. data that is not JSON returns nil (ParseConfig
// reports that); the walk is iterative, so nesting costs no stack.
func duplicateKey(data []byte) error {
	type frame struct {
		keys    map[string]int64 // nil for an array
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
		top := stack[len(stack)-1]
		if top.keys != nil {
			top.wantKey = true
		} else {
			top.n++
		}
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or a syntax error ParseConfig reports
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
			if prev, dup := top.keys[k]; dup {
				where := top.path
				if where == "" {
					where = "the top level"
				}
				return fmt.Errorf("%w: key %q given twice in one object (at %s): at %s and at %s; JSON readers disagree on which one counts, so remove one", ErrConfig, k, where, position(data, prev), position(data, at))
			}
			top.keys[k], top.key, top.wantKey = at, k, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]int64{}, path: child(), wantKey: true})
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

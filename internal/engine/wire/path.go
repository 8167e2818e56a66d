package wire

import (
	"strconv"
	"strings"
)

// PathAt returns the JSON path of the innermost value of body that holds
// byte off, for example "tools[3].function.description". Malformed JSON
// gives the path as far as it could be followed. It reads body once, up
// to off, keeping the path as a stack: its work grows with off, not with
// off times the nesting (two 32 KB bodies nested 16,000 deep took 0.58 s
// to diff when each level rescanned the value it held).
func PathAt(body []byte, off int) string {
	return pathAt(body, off, nil)
}

// pathFrame is an open object or array on the way to off.
type pathFrame struct {
	obj    bool
	in     bool // off's path goes through the current member or element
	colon  bool // obj: the current member's colon was read
	k0, k1 int  // obj: the current member's key, quotes included
	idx    int  // array: the current element's index
}

// pathAt is PathAt counting in *steps (when not nil) the bytes it reads.
func pathAt(b []byte, off int, steps *int) string {
	if off < 0 || off >= len(b) {
		return "" // no value holds it
	}
	var stack []pathFrame
	i := 0
scan:
	for {
		j := skipWS(b, i)
		addSteps(steps, i, j)
		i = j
		if i > off || i >= len(b) {
			break
		}
		var top *pathFrame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		c := b[i]
		switch {
		case c == ',':
			if top != nil {
				top.in, top.colon = false, false
				if !top.obj {
					top.idx++
				}
			}
			i++
		case c == '}' || c == ']':
			if i == off || top == nil {
				break scan
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].in = false
			}
			i++
		case c == ':':
			if top != nil && top.obj {
				top.colon = true
			}
			i++
		case top != nil && top.obj && !top.colon:
			next, stop := pathKey(b, i, off, top, steps)
			if stop {
				break scan
			}
			i = next
		default: // a value
			if top != nil {
				top.in = true
			}
			if c == '{' || c == '[' {
				stack = append(stack, pathFrame{obj: c == '{'})
				i++
				addSteps(steps, i-1, i)
				continue
			}
			end := valueEnd(b, i)
			addSteps(steps, i, end)
			if off < end || end <= i {
				break scan
			}
			i = end
			if top != nil {
				top.in = false
			}
		}
	}
	return formatPath(b, stack)
}

// addSteps adds the to-from bytes scanned to *steps, if steps is not nil.
func addSteps(steps *int, from, to int) {
	if steps != nil {
		*steps += max(0, to-from)
	}
}

// pathKey reads the object key at b[i] into top and returns the index after
// it; stop is true when the scan ends there: malformed JSON (no key, no
// colon after it) ends the path where it stands, and so does off inside the
// key.
func pathKey(b []byte, i, off int, top *pathFrame, steps *int) (next int, stop bool) {
	if b[i] != '"' {
		return i, true
	}
	end := stringEnd(b, i)
	addSteps(steps, i, end)
	if j := skipWS(b, end); j >= len(b) || b[j] != ':' {
		return i, true
	}
	top.in, top.k0, top.k1 = true, i, end
	if off < end {
		return i, true
	}
	return end, false
}

// formatPath writes the path the frames of stack hold, down to the first
// one not inside a member or element.
func formatPath(b []byte, stack []pathFrame) string {
	var sb strings.Builder
	for _, f := range stack {
		if !f.in {
			break
		}
		if !f.obj {
			sb.WriteString("[" + strconv.Itoa(f.idx) + "]")
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		raw := b[f.k0:f.k1]
		key, err := strconv.Unquote(string(raw))
		if err != nil {
			key = string(raw[min(1, len(raw)):max(min(1, len(raw)), len(raw)-1)])
		}
		sb.WriteString(key)
	}
	return sb.String()
}

// eachMember calls f for each member of the object starting at i with the
// key, the key's offset and the start and end offsets of its value, until
// f returns false.
func eachMember(b []byte, i int, f func(key string, k, v, e int) bool) {
	pos := skipWS(b, i+1)
	for pos < len(b) && b[pos] == '"' {
		k := pos
		kEnd := stringEnd(b, pos)
		key, err := strconv.Unquote(string(b[pos:kEnd]))
		if err != nil {
			key = string(b[pos+1 : max(pos+1, kEnd-1)])
		}
		pos = skipWS(b, kEnd)
		if pos >= len(b) || b[pos] != ':' {
			return
		}
		v := skipWS(b, pos+1)
		e := valueEnd(b, v)
		if !f(key, k, v, e) {
			return
		}
		pos = skipWS(b, e)
		if pos < len(b) && b[pos] == ',' {
			pos = skipWS(b, pos+1)
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset just past the string starting at i.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the offset just past the value starting at i.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \n\t\r", rune(b[j])) {
		j++
	}
	return j
}

package wire

import (
	"strconv"
	"strings"
)

// PathAt returns the JSON path of the innermost value of body that holds
// byte off, for example "tools[3].function.description". Malformed JSON
// gives the path as far as it could be followed.
func PathAt(body []byte, off int) string {
	var sb strings.Builder
	walk(body, skipWS(body, 0), off, &sb)
	return sb.String()
}

func walk(b []byte, i, off int, path *strings.Builder) {
	if i >= len(b) {
		return
	}
	switch b[i] {
	case '{':
		eachMember(b, i, func(key string, k, v, e int) bool {
			if off >= e {
				return true // off lies further on
			}
			if off < k {
				return false // between members
			}
			if path.Len() > 0 {
				path.WriteByte('.')
			}
			path.WriteString(key)
			if off >= v {
				walk(b, v, off, path)
			}
			return false
		})
	case '[':
		idx := 0
		pos := skipWS(b, i+1)
		for pos < len(b) && b[pos] != ']' {
			end := valueEnd(b, pos)
			if off < end {
				if off >= pos {
					path.WriteString("[" + strconv.Itoa(idx) + "]")
					walk(b, pos, off, path)
				}
				return
			}
			pos = skipWS(b, end)
			if pos < len(b) && b[pos] == ',' {
				pos = skipWS(b, pos+1)
			}
			idx++
		}
	}
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

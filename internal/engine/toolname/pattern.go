package toolname

// The one tool-name pattern syntax of the library: defer rules, mode
// allowlists, permission rules and hook filters all use it. A pattern is 1
// to 256 bytes of tool-name characters and * wildcards, and matches the
// whole name.

import (
	"errors"
	"fmt"
)

// CheckPattern reports whether p is a valid tool-name pattern: 1 to 256
// bytes of tool-name characters and * wildcards. Every pattern in the
// library — defer rules, mode allowlists, permission rules — has this
// syntax and is matched by [MatchPattern].
func CheckPattern(p string) error {
	if p == "" {
		return errors.New("empty pattern")
	}
	if len(p) > 256 {
		return errors.New("pattern longer than 256 bytes")
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			continue
		}
		return fmt.Errorf("character %q is not allowed in a pattern: use tool-name characters and *", rune(c))
	}
	return nil
}

// MatchPattern reports whether pattern matches the whole of name, where * matches
// any run of characters (including none). It runs in O(len(pattern) ×
// len(name)) time at worst, never exponentially.
func MatchPattern(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case p < len(pattern) && pattern[p] == name[n]:
			p++
			n++
		case star >= 0:
			p = star + 1
			mark++
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

package ecmare

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// ecmaSpace is ECMA-262's WhiteSpace and LineTerminator code points, the
// set of \s: TAB, LF, VT, FF, CR, SPACE, U+00A0, U+1680, U+2000–U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000 and U+FEFF.
var ecmaSpace = [][2]rune{
	{0x09, 0x0D}, {0x20, 0x20}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A},
	{0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF},
}

// ranges writes code point ranges as the inside of an RE2 class.
func ranges(rs [][2]rune) string {
	var b strings.Builder
	for _, r := range rs {
		if r[0] == r[1] {
			fmt.Fprintf(&b, `\x{%X}`, r[0])
		} else {
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, r[0], r[1])
		}
	}
	return b.String()
}

// complement returns the code points outside rs (sorted, disjoint).
func complement(rs [][2]rune) [][2]rune {
	var out [][2]rune
	next := rune(0)
	for _, r := range rs {
		if r[0] > next {
			out = append(out, [2]rune{next, r[0] - 1})
		}
		next = r[1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, [2]rune{next, unicode.MaxRune})
	}
	return out
}

// classEscape is the translation of an escape that stands for a set: its
// form outside a class and inside one.
type classEscape struct{ outside, inside string }

var setEscapes = map[rune]classEscape{
	'd': {`\d`, `\d`},
	'D': {`\D`, `\D`},
	'w': {`\w`, `\w`},
	'W': {`\W`, `\W`},
	's': {"[" + ranges(ecmaSpace) + "]", ranges(ecmaSpace)},
	'S': {"[" + ranges(complement(ecmaSpace)) + "]", ranges(complement(ecmaSpace))},
}

// escape translates an escape outside a class (t.src[t.i] is the "\").
func (t *translator) escape() error {
	t.i++
	if t.i >= len(t.src) {
		return t.syntax(`\ at end of pattern`)
	}
	c := t.src[t.i]
	if set, ok := setEscapes[c]; ok {
		t.i++
		t.out.WriteString(set.outside)
		return nil
	}
	switch {
	case c == 'b' || c == 'B':
		t.i++
		t.out.WriteString(`\` + string(c)) // ASCII word boundary in both dialects
		return nil
	case c >= '1' && c <= '9':
		return t.none(`a backreference (\` + string(c) + `)`)
	case c == 'k' && t.peek(1) == '<':
		return t.none(`a named backreference (\k<name>)`)
	case c == 'p' || c == 'P':
		s, err := t.property()
		if err != nil {
			return err
		}
		if s == "" {
			s = `^\x{0}-\x{10FFFF}`
		}
		t.out.WriteString("[" + s + "]")
		return nil
	}
	r, err := t.charEscape(false)
	if err != nil {
		return err
	}
	t.literal(r)
	return nil
}

// charEscape reads an escape that stands for one code point, t.src[t.i]
// being the letter after "\", and consumes it.
func (t *translator) charEscape(inClass bool) (rune, error) {
	c := t.src[t.i]
	t.i++
	switch c {
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'b':
		if inClass {
			return '\b', nil
		}
	case '0':
		if d := t.peek(0); d >= '0' && d <= '9' {
			return 0, t.none(`a legacy octal escape (\0` + string(d) + `)`)
		}
		return 0, nil
	case 'c':
		if l := t.peek(0); l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z' {
			t.i++
			return l % 32, nil
		}
		return 0, t.syntax(`\c without a letter`)
	case 'x':
		if v, ok := t.hex(2); ok {
			return v, nil
		}
		return 'x', nil // Annex B: \x not followed by two hex digits is "x"
	case 'u':
		return t.unicodeEscape()
	}
	if c >= '1' && c <= '9' {
		return 0, t.none(`a legacy octal escape or backreference (\` + string(c) + `)`)
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		if c == 'k' {
			return 'k', nil // Annex B, a pattern without named groups
		}
		return 0, t.syntax(`unknown escape \` + string(c))
	}
	return c, nil // an identity escape: \/ \- \. \\ ...
}

// hex reads n hex digits.
func (t *translator) hex(n int) (rune, bool) {
	if t.i+n > len(t.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(t.src[t.i:t.i+n]), 16, 32)
	if err != nil {
		return 0, false
	}
	t.i += n
	return rune(v), true
}

// unicodeEscape reads the rest of \uXXXX, \uXXXX\uXXXX (a surrogate pair)
// or \u{...}.
func (t *translator) unicodeEscape() (rune, error) {
	if t.peek(0) == '{' {
		end := t.i + 1
		for end < len(t.src) && t.src[end] != '}' {
			end++
		}
		v, err := strconv.ParseUint(string(t.src[t.i+1:min(end, len(t.src))]), 16, 32)
		if end >= len(t.src) || err != nil || v > unicode.MaxRune {
			return 0, t.syntax(`bad \u{...} escape`)
		}
		t.i = end + 1
		return t.scalar(rune(v))
	}
	hi, ok := t.hex(4)
	if !ok {
		return 0, t.syntax(`bad \u escape`)
	}
	if hi >= 0xD800 && hi <= 0xDBFF && t.peek(0) == '\\' && t.peek(1) == 'u' {
		save := t.i
		t.i += 2
		if lo, ok := t.hex(4); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return (hi-0xD800)<<10 + (lo - 0xDC00) + 0x10000, nil
		}
		t.i = save
	}
	return t.scalar(hi)
}

// scalar refuses a lone surrogate: Go strings, and so the instances
// validated, cannot hold one, while an ECMA string can.
func (t *translator) scalar(r rune) (rune, error) {
	if r >= 0xD800 && r <= 0xDFFF {
		return 0, t.none(fmt.Sprintf("a lone surrogate (U+%04X)", r))
	}
	return r, nil
}

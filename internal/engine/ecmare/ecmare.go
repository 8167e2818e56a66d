// Package ecmare translates ECMA-262 regular expressions, the dialect of
// JSON Schema's "pattern" and "patternProperties", into Go's RE2 syntax
// where an exact translation exists.
//
// A pattern is read as ECMA-262 reads it with the u flag (as ajv, the
// validator most MCP servers' schemas are written against, compiles it):
// code points, not UTF-16 units; \u{...} escapes; a surrogate pair written
// as two \u escapes is one code point. Annex B's lenient forms are read as
// literals where that is their only meaning (a lone "]", "{" or "}", an
// identity escape such as \/ or \-).
//
// What differs between the dialects and is translated: \uXXXX, \u{...},
// \cX, \0, \v, [\b] (backspace), \s and \S (ECMA's set holds U+00A0,
// U+FEFF, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000
// beside ASCII's), "." (ECMA excludes \r, U+2028 and U+2029 too), [^] and
// [], named groups (?<name>...), \p{Script=...} and long category names.
//
// Unicode property classes (\p{L}, \P{Script=Han}, \p{LC}) are read as
// ECMA-262 reads them: with the latest Unicode version, which ECMA-262
// requires (§2 Conformance), 17.0 here, where Go's tables are older (15.0.0
// in Go 1.26). A class whose members differ between the two is written
// out as ranges of code points (unicode_delta.go, generated from node's
// RegExp by internal/cmd/unicodegen), so U+2EBF0 (CJK Extension I, Unicode 15.1) is a
// letter of Script=Han here as in a current engine; one whose members are
// the same keeps RE2's own name.
// \d, \w, \b and their negations are ASCII in both and pass through.
//
// What has no equivalent in RE2 is refused with an error wrapping
// [ErrNoEquivalent]: lookahead and lookbehind, backreferences (\1,
// \k<name>), legacy octal escapes, lone surrogates, inline modifiers,
// repetition counts over 1000, and properties RE2 does not know.
package ecmare

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// ErrNoEquivalent is wrapped by the error of a pattern that is valid
// ECMA-262 (or may be) but has no exact RE2 translation.
var ErrNoEquivalent = errors.New("no exact RE2 equivalent")

// ErrSyntax is wrapped by the error of a pattern that is not ECMA-262.
var ErrSyntax = errors.New("not an ECMA-262 regular expression")

// maxRepeat is RE2's largest repetition count.
const maxRepeat = 1000

// maxExpanded bounds the bytes of property classes one pattern may write
// out (\p{L} is 10,627 bytes written out, measured with Go 1.26): a long pattern of them would
// otherwise cost far more to compile than its own size.
const maxExpanded = 256 << 10

// Translate returns the RE2 pattern (Go's regexp syntax) that matches
// exactly the strings ECMA-262's pattern p matches, or an error wrapping
// [ErrNoEquivalent] or [ErrSyntax] that says which construct is at fault.
// The result is known to compile.
func Translate(p string) (string, error) {
	t := &translator{src: []rune(p)}
	if err := t.disjunction(0); err != nil {
		return "", err
	}
	if t.i < len(t.src) {
		return "", t.syntax("unmatched )")
	}
	out := t.out.String()
	if _, err := regexp.Compile(out); err != nil {
		return "", fmt.Errorf("%w: RE2 cannot compile the translation (%s)", ErrNoEquivalent, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return out, nil
}

type translator struct {
	src      []rune
	i        int
	out      strings.Builder
	expanded int // bytes of written-out property classes
}

func (t *translator) syntax(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrSyntax, what, t.i)
}

func (t *translator) none(what string) error {
	return fmt.Errorf("%w: %s", ErrNoEquivalent, what)
}

func (t *translator) peek(k int) rune {
	if t.i+k < len(t.src) {
		return t.src[t.i+k]
	}
	return -1
}

// disjunction translates alternatives up to an unmatched ")" or the end.
func (t *translator) disjunction(depth int) error {
	if depth > 500 {
		return t.none("groups nest too deeply")
	}
	for t.i < len(t.src) {
		c := t.src[t.i]
		switch c {
		case ')':
			return nil
		case '|':
			t.out.WriteByte('|')
			t.i++
			continue
		case '^', '$':
			t.out.WriteRune(c)
			t.i++
			continue
		case '*', '+', '?':
			return t.syntax("nothing to repeat")
		case '{':
			if _, ok := t.braces(); ok {
				return t.syntax("nothing to repeat")
			}
		}
		if err := t.atom(depth); err != nil {
			return err
		}
		if err := t.quantifier(); err != nil {
			return err
		}
	}
	return nil
}

// atom translates one atom.
func (t *translator) atom(depth int) error {
	c := t.src[t.i]
	switch c {
	case '.':
		t.i++
		t.out.WriteString(`[^\n\r\x{2028}\x{2029}]`)
		return nil
	case '(':
		return t.group(depth)
	case '[':
		return t.class()
	case '\\':
		return t.escape()
	}
	t.i++
	t.literal(c)
	return nil
}

// literal writes one code point as an RE2 literal.
func (t *translator) literal(c rune) {
	if c < 0x80 && unicode.IsPrint(c) {
		t.out.WriteString(regexp.QuoteMeta(string(c)))
		return
	}
	fmt.Fprintf(&t.out, `\x{%X}`, c)
}

// group translates a parenthesised group.
func (t *translator) group(depth int) error {
	t.i++
	if t.peek(0) == '?' {
		switch {
		case t.peek(1) == ':':
			t.i += 2
			t.out.WriteString("(?:")
		case t.peek(1) == '=' || t.peek(1) == '!':
			return t.none("lookahead (?= or (?! )")
		case t.peek(1) == '<' && (t.peek(2) == '=' || t.peek(2) == '!'):
			return t.none("lookbehind (?<= or (?<! )")
		case t.peek(1) == '<':
			end := t.i + 2
			for end < len(t.src) && t.src[end] != '>' {
				end++
			}
			if end >= len(t.src) || end == t.i+2 {
				return t.syntax("unterminated group name")
			}
			t.i = end + 1
			t.out.WriteString("(") // a name changes nothing a match decides
		default:
			return t.none("inline modifiers (?flags: )")
		}
	} else {
		t.out.WriteByte('(')
	}
	if err := t.disjunction(depth + 1); err != nil {
		return err
	}
	if t.peek(0) != ')' {
		return t.syntax("unterminated group")
	}
	t.i++
	t.out.WriteByte(')')
	return nil
}

// braces reads {n}, {n,} or {n,m} at t.i without consuming it, returning
// its text and whether it is a quantifier.
func (t *translator) braces() (string, bool) {
	j := t.i + 1
	digits := func() int {
		k := j
		for j < len(t.src) && t.src[j] >= '0' && t.src[j] <= '9' {
			j++
		}
		return j - k
	}
	if digits() == 0 {
		return "", false
	}
	if j < len(t.src) && t.src[j] == ',' {
		j++
		digits()
	}
	if j >= len(t.src) || t.src[j] != '}' {
		return "", false
	}
	return string(t.src[t.i : j+1]), true
}

// quantifier translates an optional quantifier after an atom.
func (t *translator) quantifier() error {
	if t.i >= len(t.src) {
		return nil
	}
	switch c := t.src[t.i]; c {
	case '*', '+', '?':
		t.i++
		t.out.WriteRune(c)
	case '{':
		q, ok := t.braces()
		if !ok {
			return nil // a literal "{", written by the next atom
		}
		lo, hi, _ := strings.Cut(q[1:len(q)-1], ",")
		for _, n := range []string{lo, hi} {
			if v, err := strconv.Atoi(n); n != "" && (err != nil || v > maxRepeat) {
				return t.none("a repetition count over 1000")
			}
		}
		if l, _ := strconv.Atoi(lo); hi != "" && strings.Contains(q, ",") {
			if h, _ := strconv.Atoi(hi); h < l {
				return t.syntax("numbers out of order in {} quantifier")
			}
		}
		t.i += len([]rune(q))
		t.out.WriteString(q)
	default:
		return nil
	}
	if t.peek(0) == '?' {
		t.i++
		t.out.WriteByte('?')
	}
	switch t.peek(0) {
	case '*', '+', '?':
		return t.syntax("nothing to repeat")
	case '{':
		if _, ok := t.braces(); ok {
			return t.syntax("nothing to repeat")
		}
	}
	return nil
}

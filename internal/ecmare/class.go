package ecmare

import (
	"fmt"
	"strings"
	"unicode"
)

// classItem is one member of a character class: a code point, or a set
// already written as the inside of an RE2 class.
type classItem struct {
	r   rune
	set string
}

// class translates a character class (t.src[t.i] is the "[").
func (t *translator) class() error {
	t.i++
	negated := t.peek(0) == '^'
	if negated {
		t.i++
	}
	if t.peek(0) == ']' {
		t.i++
		if negated {
			t.out.WriteString(`[\x{0}-\x{10FFFF}]`) // [^] is any code point
		} else {
			t.out.WriteString(`[^\x{0}-\x{10FFFF}]`) // [] matches nothing
		}
		return nil
	}
	var b strings.Builder
	for {
		if t.i >= len(t.src) {
			return t.syntax("unterminated character class")
		}
		if t.src[t.i] == ']' {
			t.i++
			break
		}
		a, err := t.classAtom()
		if err != nil {
			return err
		}
		if t.peek(0) == '-' && t.peek(1) != ']' && t.peek(1) != -1 {
			t.i++
			z, err := t.classAtom()
			if err != nil {
				return err
			}
			if a.set != "" || z.set != "" {
				return t.syntax("a class escape in a range")
			}
			if z.r < a.r {
				return t.syntax("range out of order in character class")
			}
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, a.r, z.r)
			continue
		}
		if a.set != "" {
			b.WriteString(a.set)
		} else {
			fmt.Fprintf(&b, `\x{%X}`, a.r)
		}
	}
	t.out.WriteByte('[')
	if negated {
		t.out.WriteByte('^')
	}
	t.out.WriteString(b.String())
	t.out.WriteByte(']')
	return nil
}

// classAtom reads one member of a class.
func (t *translator) classAtom() (classItem, error) {
	c := t.src[t.i]
	if c != '\\' {
		t.i++
		return classItem{r: c}, nil
	}
	t.i++
	if t.i >= len(t.src) {
		return classItem{}, t.syntax(`\ at end of pattern`)
	}
	e := t.src[t.i]
	if set, ok := setEscapes[e]; ok {
		t.i++
		return classItem{set: set.inside}, nil
	}
	switch {
	case e == 'p' || e == 'P':
		s, err := t.property()
		if err != nil {
			return classItem{}, err
		}
		return classItem{set: s}, nil
	case e == 'B':
		return classItem{}, t.syntax(`\B in a character class`)
	case e == '-':
		t.i++
		return classItem{r: '-'}, nil
	}
	r, err := t.charEscape(true)
	return classItem{r: r}, err
}

// generalCategories maps ECMA's long General_Category names to RE2's short
// ones (RE2 knows only the short).
var generalCategories = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
	"Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn",
	"Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Number": "N", "Decimal_Number": "Nd", "digit": "Nd",
	"Letter_Number": "Nl", "Other_Number": "No", "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc",
	"Dash_Punctuation": "Pd", "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
	"Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
	"Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C", "Control": "Cc",
	"cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co", "Unassigned": "Cn",
}

// property translates \p{...} or \P{...} (t.src[t.i] is the "p" or "P")
// into the inside of an RE2 class ("" for the empty set).
func (t *translator) property() (string, error) {
	neg := t.src[t.i] == 'P'
	t.i++
	if t.peek(0) != '{' {
		return "", t.syntax(`\p without {name}`)
	}
	end := t.i + 1
	for end < len(t.src) && t.src[end] != '}' {
		end++
	}
	if end >= len(t.src) {
		return "", t.syntax(`unterminated \p{...}`)
	}
	body := string(t.src[t.i+1 : end])
	t.i = end + 1
	name, value, hasValue := strings.Cut(body, "=")
	var re2 string
	switch {
	case hasValue && (name == "General_Category" || name == "gc"):
		re2 = category(value)
	case hasValue && (name == "Script" || name == "sc"):
		if _, ok := unicode.Scripts[value]; ok && value != "" {
			re2 = value
		}
	case !hasValue && body == "Any":
		re2 = "any"
	case !hasValue && body == "ASCII":
		re2 = "ascii"
	case !hasValue:
		re2 = category(body)
	}
	if re2 == "" {
		return "", t.none(`the Unicode property \p{` + body + `}`)
	}
	switch {
	case re2 == "any" && neg:
		return "", nil
	case re2 == "any":
		return `\x{0}-\x{10FFFF}`, nil
	case re2 == "ascii" && neg:
		return `\x{80}-\x{10FFFF}`, nil
	case re2 == "ascii":
		return `\x{0}-\x{7F}`, nil
	case neg:
		return `\P{` + re2 + `}`, nil
	}
	return `\p{` + re2 + `}`, nil
}

// category returns RE2's name of a General_Category value, or "".
func category(v string) string {
	if long, ok := generalCategories[v]; ok {
		v = long
	}
	if v == "LC" {
		return "" // RE2 has no LC
	}
	if _, ok := unicode.Categories[v]; ok {
		return v
	}
	return ""
}

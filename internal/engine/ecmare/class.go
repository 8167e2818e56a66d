package ecmare

import (
	"fmt"
	"strings"
	"sync"
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
	var kind, v string // "gc" or "sc", and the value in Go's terms
	switch {
	case hasValue && (name == "General_Category" || name == "gc"):
		kind, v = "gc", category(value)
	case hasValue && (name == "Script" || name == "sc"):
		kind, v = "sc", value
	case !hasValue && body == "Any":
		if neg {
			return "", nil
		}
		return `\x{0}-\x{10FFFF}`, nil
	case !hasValue && body == "ASCII":
		if neg {
			return `\x{80}-\x{10FFFF}`, nil
		}
		return `\x{0}-\x{7F}`, nil
	case !hasValue:
		kind, v = "gc", category(body)
	}
	set, ok := propertySet(kind, v)
	if !ok {
		return "", t.none(`the Unicode property \p{` + body + `}`)
	}
	if set == nil { // Go's table is ECMA-262's: RE2's own name
		if neg {
			return `\P{` + v + `}`, nil
		}
		return `\p{` + v + `}`, nil
	}
	if neg {
		set = complement(set)
	}
	out := ranges(set)
	if t.expanded += len(out); t.expanded > maxExpanded {
		return "", t.none("Unicode property classes that expand to more than 256 KiB")
	}
	return out, nil
}

// propertySet returns the code points ECMA-262's \p{kind=v} matches, as
// ranges, or nil when Go's table of that name (which RE2 reads) holds
// exactly them; ok is false for a value neither knows. Go's tables are
// older than ECMA-262's (unicode.go): where they differ, the set is Go's
// table with the differences applied, written out.
func propertySet(kind, v string) (set []span, ok bool) {
	if v == "" {
		return nil, false
	}
	tab := map[string]map[string]*unicode.RangeTable{"gc": unicode.Categories, "sc": unicode.Scripts}[kind][v]
	d, differs := unicodeDelta[kind+":"+v]
	switch {
	case !differs && tab != nil:
		return nil, true
	case !differs:
		return nil, false
	}
	key := kind + ":" + v
	if set, ok := propertySets.Load(key); ok {
		return set.([]span), true
	}
	var have []span
	if tab != nil {
		have = spansOf(tab)
	}
	set = minus(union(have, d.add), d.del)
	propertySets.Store(key, set) // at most one per name of unicodeDelta
	return set, true
}

// propertySets caches propertySet's written-out sets by "kind:value".
var propertySets sync.Map

// category returns RE2's name of a General_Category value, or "".
func category(v string) string {
	if long, ok := generalCategories[v]; ok {
		v = long
	}
	if _, ok := unicode.Categories[v]; ok {
		return v
	}
	if _, ok := unicodeDelta["gc:"+v]; ok {
		return v // a value Go's tables lack
	}
	return ""
}

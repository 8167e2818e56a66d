package deferral

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/internal/pattern"
)

// ErrRule reports a rule string that cannot be parsed. The message quotes
// the rule and names its layer.
var ErrRule = errors.New("defer: invalid rule")

// Verb is what a rule asks for.
type Verb uint8

// The two verbs.
const (
	VerbDefer   Verb = iota + 1 // Defer(pattern): may be deferred
	VerbNoDefer                 // NoDefer(pattern): pinned resident
)

func (v Verb) String() string {
	if v == VerbNoDefer {
		return "NoDefer"
	}
	return "Defer"
}

// Rule is one override: Defer(pattern) or NoDefer(pattern).
type Rule struct {
	Verb    Verb
	Pattern string
}

// String returns the rule in the form [ParseLayer] reads.
func (r Rule) String() string { return r.Verb.String() + "(" + r.Pattern + ")" }

// matches reports whether the rule's pattern matches name.
func (r Rule) matches(name string) bool { return pattern.Match(r.Pattern, name) }

// parseRule parses "Defer(pattern)" or "NoDefer(pattern)". Patterns match the
// whole tool name and may use * for any run of characters. Other characters
// must be tool-name characters, so a rule cannot smuggle in syntax.
func parseRule(s string) (Rule, error) {
	src := s
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return Rule{}, fmt.Errorf("%w %q: want Defer(pattern) or NoDefer(pattern)", ErrRule, clip(src))
	}
	verb, pat := s[:open], strings.TrimSpace(s[open+1:len(s)-1])
	var r Rule
	switch verb {
	case "Defer":
		r.Verb = VerbDefer
	case "NoDefer":
		r.Verb = VerbNoDefer
	default:
		return Rule{}, fmt.Errorf("%w %q: unknown verb %q: want Defer or NoDefer", ErrRule, clip(src), clip(verb))
	}
	if err := pattern.Check(pat); err != nil {
		return Rule{}, fmt.Errorf("%w %q: %v", ErrRule, clip(src), err)
	}
	r.Pattern = pat
	return r, nil
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// Layer is a named, ordered list of rules: "user", "project", "session" ...
type Layer struct {
	Name  string
	Rules []Rule
}

// ParseLayer parses a layer from text: one rule per line; blank lines and
// lines starting with # are ignored. Errors quote the rule, its line and the
// layer.
func ParseLayer(name, text string) (Layer, error) {
	l := Layer{Name: name}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, err := parseRule(line)
		if err != nil {
			return Layer{}, fmt.Errorf("layer %q, line %d: %w", name, i+1, err)
		}
		l.Rules = append(l.Rules, r)
	}
	return l, nil
}

// MustLayer is ParseLayer for rules written in code; it panics on a bad rule.
func MustLayer(name string, rules ...string) Layer {
	l, err := ParseLayer(name, strings.Join(rules, "\n"))
	if err != nil {
		panic(err)
	}
	return l
}

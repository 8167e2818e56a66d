package deferral

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// errRule reports a rule string that cannot be parsed. The message quotes
// the rule and names its layer.
var errRule = errors.New("defer: invalid rule")

// verb is what a rule asks for.
type verb uint8

// The two verbs.
const (
	verbDefer   verb = iota + 1 // Defer(pattern): may be deferred
	verbNoDefer                 // NoDefer(pattern): pinned resident
)

func (v verb) String() string {
	if v == verbNoDefer {
		return "NoDefer"
	}
	return "Defer"
}

// rule is one parsed override: Defer(pattern) or NoDefer(pattern).
type rule struct {
	verb    verb
	pattern string
}

// String returns the rule in the form [ParseLayer] reads.
func (r rule) String() string { return r.verb.String() + "(" + r.pattern + ")" }

// matches reports whether the rule's pattern matches name.
func (r rule) matches(name string) bool { return toolname.MatchPattern(r.pattern, name) }

// parseRule parses "Defer(pattern)" or "NoDefer(pattern)". Patterns match the
// whole tool name and may use * for any run of characters. Other characters
// must be tool-name characters, so a rule cannot smuggle in syntax.
func parseRule(s string) (rule, error) {
	src := s
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return rule{}, fmt.Errorf("%w %q: want Defer(pattern) or NoDefer(pattern)", errRule, clip(src))
	}
	name, pat := s[:open], strings.TrimSpace(s[open+1:len(s)-1])
	var r rule
	switch name {
	case "Defer":
		r.verb = verbDefer
	case "NoDefer":
		r.verb = verbNoDefer
	default:
		return rule{}, fmt.Errorf("%w %q: unknown verb %q: want Defer or NoDefer", errRule, clip(src), clip(name))
	}
	if err := toolname.CheckPattern(pat); err != nil {
		return rule{}, fmt.Errorf("%w %q: %v", errRule, clip(src), err)
	}
	r.pattern = pat
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
	Name string
	// Rules are the layer's rules, each "Defer(pattern)" or
	// "NoDefer(pattern)": a pattern matches the whole tool name, * any run
	// of characters, and holds only tool-name characters. [ParseLayer] and
	// [MustLayer] write them in this form; [Policy.Plan] refuses a layer
	// with a rule that does not parse.
	Rules []string
}

// rules parses the layer's rules.
func (l Layer) rules() ([]rule, error) {
	out := make([]rule, 0, len(l.Rules))
	for _, s := range l.Rules {
		r, err := parseRule(s)
		if err != nil {
			return nil, fmt.Errorf("layer %q: %w", l.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
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
		l.Rules = append(l.Rules, r.String())
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

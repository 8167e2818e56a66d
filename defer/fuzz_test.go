package deferral

import (
	"strings"
	"testing"
)

// FuzzParseRule: any rule string parses or fails with errRule, never panics,
// and a parsed rule prints back to a string that parses to the same rule.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Defer(mcp__github__*)", "NoDefer(Read)", "Defer()", "Allow(x)", "NoDefer(**a*b*)", "Defer(\x00)", "Defer(ü)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRule(s)
		if err != nil {
			if !strings.Contains(err.Error(), errRule.Error()) {
				t.Fatalf("error without errRule: %v", err)
			}
			return
		}
		back, err := parseRule(r.String())
		if err != nil || back != r {
			t.Fatalf("round trip of %q: %v %v", r, back, err)
		}
	})
}

// FuzzMatch checks Match against a reference built from strings.Split: a
// pattern a*b*c matches when the name starts with a, ends with c and
// contains b in between, in order.
func FuzzMatch(f *testing.F) {
	f.Add("a*b", "axxb")
	f.Add("*", "")
	f.Add(strings.Repeat("a*", 30)+"b", strings.Repeat("a", 40))
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 300 || len(name) > 300 {
			return
		}
		if got, want := match(pattern, name), refMatch(pattern, name); got != want {
			t.Fatalf("Match(%q, %q) = %v, reference says %v", pattern, name, got, want)
		}
	})
}

func refMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return len(rest) >= len(last) && strings.HasSuffix(rest, last)
}

package toolname

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidAgreesWithThePattern checks Valid against the providers' own
// pattern on edge cases and on every single byte.
func TestValidAgreesWithThePattern(t *testing.T) {
	re := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	cases := []string{"", "a", "A-b_9", "mcp__github__create_pull_request", "a.b", "a b", "é", strings.Repeat("x", 64), strings.Repeat("x", 65)}
	for c := 0; c < 256; c++ {
		cases = append(cases, string([]byte{byte(c)}))
	}
	for _, name := range cases {
		if got, want := Valid(name), re.MatchString(name); got != want {
			t.Errorf("Valid(%q) = %v, the pattern says %v", name, got, want)
		}
	}
}

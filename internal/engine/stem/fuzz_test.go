package stem

import (
	"strings"
	"testing"
)

// FuzzStem feeds arbitrary strings (query words are model-facing input):
// Stem must not panic, must agree with AppendStem, must return non-ASCII
// words unchanged and never return a stem longer than the word.
func FuzzStem(f *testing.F) {
	for _, s := range []string{"", "a", "'", "'''", "'s'", "y", "yyy", "Yes", "dying", "succeedly", "generations",
		"skies", "news", "über", "ab'", "x'sss", "ied", "eed", "inning", "pasted", "\xff\xfe", "a\x00b", strings.Repeat("ational", 20)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Stem(s)
		if app := string(AppendStem([]byte("pre"), s)); app != "pre"+got {
			t.Fatalf("AppendStem(%q) = %q, Stem = %q", s, app, got)
		}
		if len(got) > len(s) {
			t.Fatalf("Stem(%q) = %q is longer", s, got)
		}
		if !isASCII(s) && got != s {
			t.Fatalf("Stem(%q) = %q changed a non-ASCII word", s, got)
		}
	})
}

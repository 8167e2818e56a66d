package neighbours

import "testing"

// BenchmarkLoad measures the one-time parse of the embedded file (the
// cost of the first lookup in a process).
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(packed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOf looks up four words, one absent, per op.
func BenchmarkOf(b *testing.B) {
	load()
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range []string{"newest", "shipped", "xyzzy", "smartphone"} {
			_ = Of(w)
		}
	}
}

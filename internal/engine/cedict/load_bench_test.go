package cedict

import "testing"

// BenchmarkParse measures the one-time load: gunzip and index the
// embedded table.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(packed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup measures one lookup of a known and an unknown word.
func BenchmarkLookup(b *testing.B) {
	Lookup("删除")
	b.ReportAllocs()
	for b.Loop() {
		Lookup("删除")
		Lookup("没有这个词")
	}
}

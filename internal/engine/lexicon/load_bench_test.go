package lexicon

import (
	"slices"
	"strings"
	"testing"
)

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

var lookupWords = []string{"delete", "notify", "search", "file", "query", "xyzzy", "create", "merge"}

// BenchmarkRelated looks up eight words, one absent, per op.
func BenchmarkRelated(b *testing.B) {
	load()
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range lookupWords {
			_ = Related(w)
		}
	}
}

// BenchmarkSortedBaseline does the same lookups by binary search over the
// sorted entries, the table layout without maps, for the ratio.
func BenchmarkSortedBaseline(b *testing.B) {
	var es []entry
	for k, rels := range load().word {
		es = append(es, entry{k, rels})
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range lookupWords {
			_, _ = slices.BinarySearchFunc(es, w, func(e entry, k string) int { return strings.Compare(e.key, k) })
		}
	}
}

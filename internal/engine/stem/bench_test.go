package stem

import "testing"

// benchWords is every 40th word of the Snowball vocabulary (1,067 words),
// a deterministic sample with the vocabulary's mix of lengths and endings.
func benchWords(b *testing.B) []string {
	var words []string
	for i, p := range vocabulary(b) {
		if i%40 == 0 {
			words = append(words, p[0])
		}
	}
	return words
}

// BenchmarkStem stems the sample once per op.
func BenchmarkStem(b *testing.B) {
	words := benchWords(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			_ = Stem(w)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
}

// BenchmarkAppendStem stems the sample into one reused buffer.
func BenchmarkAppendStem(b *testing.B) {
	words := benchWords(b)
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			buf = AppendStem(buf[:0], w)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
}

// BenchmarkMapBaseline looks each sample word up in a precomputed
// word->stem map: the baseline a stem cache would cost, for the ratio.
func BenchmarkMapBaseline(b *testing.B) {
	words := benchWords(b)
	cache := make(map[string]string, len(words))
	for _, w := range words {
		cache[w] = Stem(w)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			_ = cache[w]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
}

package toolsearch

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// invertedBM25 is the baseline a harness author who knows search would
// write: BM25 (k1 1.2, b 0.75) over the name's words and the description,
// lower-cased, with a stop list, CJK as character bigrams, and an inverted
// index of precomputed impacts, so that a query walks only the postings of
// its own terms, into a reused score array. It has no field weights,
// stemming or vocabulary. It is self-contained on purpose (its own
// tokenizer), so that it stays the same baseline whatever the ranker does.
type invertedBM25 struct {
	names    []string
	dict     map[string][]invPosting
	scores   []float64
	touched  []int32
	stopList map[string]bool
}

type invPosting struct {
	doc    int32
	impact float64
}

// invStopWords is a common English stop list (the 33 of Lucene's
// EnglishAnalyzer, plus a few words every tool description uses).
var invStopWords = strings.Fields(`a an and are as at be but by for if in into is it no not of on or such
	that the their then there these they this to was will with from using use given specified`)

func invTerms(s string, stop map[string]bool, emit func(string)) {
	var word []rune
	flush := func() {
		if len(word) == 0 {
			return
		}
		w := strings.ToLower(string(word))
		word = word[:0]
		if !stop[w] && len([]rune(w)) > 1 {
			emit(w)
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r):
			flush()
			j := i
			for j < len(rs) && (unicode.Is(unicode.Han, rs[j]) || unicode.Is(unicode.Hiragana, rs[j]) || unicode.Is(unicode.Katakana, rs[j]) || unicode.Is(unicode.Hangul, rs[j])) {
				j++
			}
			if j-i == 1 {
				emit(string(rs[i]))
			}
			for k := i; k+1 < j; k++ {
				emit(string(rs[k : k+2]))
			}
			i = j - 1
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(word) > 0 && unicode.IsUpper(r) && unicode.IsLower(word[len(word)-1]) {
				flush() // camelCase
			}
			word = append(word, r)
		default: // _, -, spaces, punctuation
			flush()
		}
	}
	flush()
}

func newInvertedBM25(tools []*registry.Tool) *invertedBM25 {
	const k1, b = 1.2, 0.75
	ix := &invertedBM25{dict: map[string][]invPosting{}, stopList: map[string]bool{}}
	for _, w := range invStopWords {
		ix.stopList[w] = true
	}
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, func(x, y *registry.Tool) int { return strings.Compare(x.Name, y.Name) })
	tfs := make([]map[string]float64, len(sorted))
	lens := make([]float64, len(sorted))
	avg := 0.0
	for i, t := range sorted {
		ix.names = append(ix.names, t.Name)
		tf := map[string]float64{}
		invTerms(t.Name+" "+t.Description, ix.stopList, func(w string) {
			tf[w]++
			lens[i]++
		})
		tfs[i] = tf
		avg += lens[i]
	}
	avg /= math.Max(1, float64(len(sorted)))
	n := float64(len(sorted))
	df := map[string]float64{}
	for _, tf := range tfs {
		for w := range tf {
			df[w]++
		}
	}
	for i, tf := range tfs {
		terms := make([]string, 0, len(tf))
		for w := range tf {
			terms = append(terms, w)
		}
		slices.Sort(terms)
		for _, w := range terms {
			f := tf[w]
			idf := math.Log(1 + (n-df[w]+0.5)/(df[w]+0.5))
			ix.dict[w] = append(ix.dict[w], invPosting{int32(i), idf * f * (k1 + 1) / (f + k1*(1-b+b*lens[i]/avg))})
		}
	}
	ix.scores = make([]float64, len(sorted))
	return ix
}

// Search is not safe for concurrent use (the score array is reused).
func (ix *invertedBM25) Search(_ context.Context, queries []string, limit int) ([]search.Hit, error) {
	for _, q := range queries {
		invTerms(q, ix.stopList, func(w string) {
			for _, p := range ix.dict[w] {
				if ix.scores[p.doc] == 0 {
					ix.touched = append(ix.touched, p.doc)
				}
				ix.scores[p.doc] += p.impact
			}
		})
	}
	hits := make([]search.Hit, 0, len(ix.touched))
	for _, d := range ix.touched {
		hits = append(hits, search.Hit{Name: ix.names[d], Score: ix.scores[d]})
		ix.scores[d] = 0
	}
	ix.touched = ix.touched[:0]
	return topHits(hits, limit), nil
}

// The inverted baseline ranks like a scan would: same top hits as a
// brute-force BM25 over the same terms, for a few queries.
func TestInvertedBM25Baseline(t *testing.T) {
	plan := syntheticPlan(t, 300)
	ix := newInvertedBM25(plan.Deferred())
	ctx := context.Background()
	for _, q := range [][]string{{"open a pull request"}, {"take a screenshot"}, {"创建拉取请求"}, {"listPods namespace"}} {
		got, err := ix.Search(ctx, q, 5)
		require.NoError(t, err)
		if !unicode.Is(unicode.Han, []rune(q[0])[0]) {
			require.NotEmpty(t, got, q) // CJK: no vocabulary, no match in English catalogs
		}
		// Brute force: score every tool from its own term counts.
		var want []search.Hit
		for i, name := range ix.names {
			s := 0.0
			for w, ps := range ix.dict {
				qs := 0
				for _, qq := range q {
					invTerms(qq, ix.stopList, func(x string) {
						if x == w {
							qs++
						}
					})
				}
				for _, p := range ps {
					if int(p.doc) == i {
						s += float64(qs) * p.impact
					}
				}
			}
			if s > 0 {
				want = append(want, search.Hit{Name: name, Score: s})
			}
		}
		want = topHits(want, 5)
		require.Len(t, got, len(want))
		for i := range want {
			assert.Equal(t, want[i].Name, got[i].Name, q)
			assert.InDelta(t, want[i].Score, got[i].Score, 1e-9, q)
		}
	}
	var stopped []string
	invTerms("Get the file from a path", ix.stopList, func(w string) { stopped = append(stopped, w) })
	assert.Equal(t, []string{"get", "file", "path"}, stopped)
}

// BenchmarkQueryInverted is toolshelf's fuzzy ranking against the inverted
// BM25 baseline, in the same run, on the same query; the baseline
// sub-benchmark reports inverted/toolshelf (above 1: toolshelf is faster).
func BenchmarkQueryInverted(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1000, 10000} {
		plan := syntheticPlan(b, n)
		s, err := New(plan, nil)
		require.NoError(b, err)
		ix := newInvertedBM25(plan.Deferred())
		var toolshelf float64
		b.Run(fmt.Sprintf("%d/toolshelf", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Search(ctx, benchQuery, 5, Scope{}); err != nil {
					b.Fatal(err)
				}
			}
			toolshelf = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
		b.Run(fmt.Sprintf("%d/inverted-bm25", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = ix.Search(ctx, benchQuery, 5)
			}
			if toolshelf > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/toolshelf, "inverted/toolshelf")
			}
		})
	}
}

package toolsearch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/search"
)

// searcherWith builds a searcher over paths whose vocabulary uses the
// Chinese sources zh.
func searcherWith(t testing.TB, v *Vocabulary, zh zhSources, paths ...string) *Searcher {
	t.Helper()
	v = v.clone()
	v.zh = zh
	plan, err := PlanCatalogs(paths...)
	require.NoError(t, err)
	s, err := New(plan, &search.Options{Ranker: &BM25F{Vocabulary: v}})
	require.NoError(t, err)
	return s
}

// TestDictionaryTranslatesUnknownWords: a Chinese word the glossary lacks
// reaches an English tool through CC-CEDICT, as an alternative weighted
// below a glossary translation and below the literal word; without
// CC-CEDICT it finds nothing.
func TestDictionaryTranslatesUnknownWords(t *testing.T) {
	v := DefaultVocabulary()
	for _, w := range []string{"天气", "天气预报", "汇率"} {
		_, known := v.cjk[w]
		require.False(t, known, "the test needs words the glossary lacks: %s", w)
	}
	cat := writeCatalog(t, "",
		catalogTool{Name: "get_forecast", Description: "Get the weather forecast for a city."},
		catalogTool{Name: "convert_currency", Description: "Convert an amount at today's exchange rate."},
		catalogTool{Name: "get_stock_price", Description: "Look up a share price."},
		catalogTool{Name: "road_conditions", Description: "Report the conditions on a road."},
	)
	ctx := context.Background()
	with := searcherWith(t, v, zhGlossary|zhCEDICT, cat)
	without := searcherWith(t, v, zhGlossary, cat)
	for q, want := range map[string]string{"天气": "get_forecast", "天气预报": "get_forecast", "汇率": "convert_currency"} {
		hits, err := with.Search(ctx, []string{q}, 3, Scope{})
		require.NoError(t, err)
		require.NotEmpty(t, hits, q)
		assert.Equal(t, want, hits[0].Name, q)

		e, err := with.Explain(ctx, []string{q}, want, Scope{})
		require.NoError(t, err)
		require.Len(t, e.Words, 1)
		require.GreaterOrEqual(t, e.Words[0].Best, 0, q)
		best := e.Words[0].Alts[e.Words[0].Best]
		assert.Equal(t, viaDictionary, best.Via, q)
		assert.LessOrEqual(t, best.Weight, weightDict, q)
		assert.Less(t, best.Weight, weightTranslation, q)
		for _, a := range e.Words[0].Alts {
			assert.NotContains(t, a.Via, "wordnet", "%s: CC-CEDICT's translations are not expanded through WordNet", q)
		}

		hits, err = without.Search(ctx, []string{q}, 3, Scope{})
		require.NoError(t, err)
		assert.NotContains(t, names(hits), want, "%s: the glossary alone does not know it", q)
	}
}

// TestDictionaryNeverOutranksGlossary: for a word the glossary knows, its
// translations are the glossary's alone (CC-CEDICT's 仓库 is "depot,
// storehouse, warehouse"; the glossary's "repository"), and a word's
// CC-CEDICT translations are weighted by rank, all below 1.
func TestDictionaryNeverOutranksGlossary(t *testing.T) {
	v := DefaultVocabulary()
	var got [][]expansion
	v.segment("仓库", func(_ string, exp []expansion) { got = append(got, exp) })
	require.Len(t, got, 1)
	for _, e := range got[0] {
		assert.Zero(t, e.w, "a glossary translation: %v", e.terms)
	}
	d := v.dictionary("仓库")
	require.NotEmpty(t, d)
	assert.Equal(t, []string{"depot"}, d[0].terms)
	for i, e := range d {
		want := weightDictAlt
		if i == 0 {
			want = weightDict
		}
		assert.Equal(t, want, e.w)
		assert.Equal(t, viaDictionary, e.via)
	}
	assert.Nil(t, v.dictionary("里"), "a single character gets no CC-CEDICT translation")
	assert.Nil(t, v.dictionary("东京"), "a name gets none")
	assert.Nil(t, v.dictionary("没有这个词"), "an unknown word gets none")
}

// TestDictionarySegmentationDeterministic: segmenting and translating a
// run gives the same words and expansions every time (no map order).
func TestDictionarySegmentationDeterministic(t *testing.T) {
	v := DefaultVocabulary()
	run := "把这个议题分配给张三然后查看天气预报和汇率并且推敲一下"
	var first string
	for i := range 5 {
		var b strings.Builder
		v.segment(run, func(s string, exp []expansion) {
			b.WriteString(s)
			for _, e := range exp {
				b.WriteString("|" + strings.Join(e.terms, " ") + "/" + e.via)
			}
			b.WriteByte('\n')
		})
		if i == 0 {
			first = b.String()
			continue
		}
		assert.Equal(t, first, b.String())
	}
	assert.Contains(t, first, "天气预报|weather forecast/"+viaDictionary)
}

// zhReducedVocabulary is the shipped vocabulary with every glossary key
// but the first of each line removed: the case of a word the glossary
// does not know, on the dev set's own Chinese (the remaining keys keep
// the back-off something to share characters with).
func zhReducedVocabulary(t testing.TB) *Vocabulary {
	t.Helper()
	v := &Vocabulary{latin: map[string][]expansion{}, cjk: map[string][]expansion{}, zh: zhDefault}
	for _, f := range []string{"data/abbreviations.txt", "data/glossary-zh.txt"} {
		b, err := dataFS.ReadFile(f)
		require.NoError(t, err)
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			lhs, rhs, oneWay := strings.Cut(l, "=>")
			if oneWay && hasCJK(lhs) && !strings.HasPrefix(strings.TrimSpace(l), "#") {
				first, _, _ := strings.Cut(lhs, "|")
				lines[i] = strings.TrimSpace(first) + " => " + rhs
			}
		}
		require.NoError(t, v.parse(f, strings.Join(lines, "\n")))
	}
	return v
}

// zhSourceRows evaluates the dev set's Chinese and mixed queries with each
// combination of Chinese sources, for the table in docs/search-quality.md.
func zhSourceRows(t *testing.T) string {
	ctx := context.Background()
	var zhq []EvalQuery
	for _, q := range loadQueries(t, "../../../testdata/queries/dev.jsonl") {
		if q.Lang != "en" {
			zhq = append(zhq, q)
		}
	}
	full, reduced := DefaultVocabulary(), zhReducedVocabulary(t)
	var b strings.Builder
	b.WriteString("| glossary | Chinese sources | zh R@1 | zh R@5 | mixed R@1 | mixed R@5 | zh+mixed tune R@1 | tune R@5 | check R@1 | check R@5 |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, row := range []struct {
		glossary string
		v        *Vocabulary
		zh       zhSources
		name     string
	}{
		{"as shipped", full, zhGlossary, "glossary only (before CC-CEDICT)"},
		{"as shipped", full, zhGlossary | zhCEDICT, "glossary, then CC-CEDICT for words it lacks (shipped)"},
		{"as shipped", full, zhGlossary | zhCEDICT | zhMerge, "glossary and CC-CEDICT for every word"},
		{"none", full, zhCEDICT, "CC-CEDICT only"},
		{"first key of each line", reduced, zhGlossary, "glossary only"},
		{"first key of each line", reduced, zhGlossary | zhCEDICT, "glossary, then CC-CEDICT"},
	} {
		s := searcherWith(t, row.v, row.zh, catalogPaths(t)...)
		rep, err := Eval(ctx, s, zhq)
		require.NoError(t, err)
		z, m, tu, ch := rep.ByLang["zh"], rep.ByLang["mixed"], rep.ByHalf[HalfTune], rep.ByHalf[HalfCheck]
		fmtRow(&b, row.glossary, row.name, z.RecallAt1, z.RecallAt5, m.RecallAt1, m.RecallAt5, tu.RecallAt1, tu.RecallAt5, ch.RecallAt1, ch.RecallAt5)
	}
	return b.String()
}

func fmtRow(b *strings.Builder, a, c string, fs ...float64) {
	fmt.Fprintf(b, "| %s | %s |", a, c)
	for _, f := range fs {
		fmt.Fprintf(b, " %.3f |", f)
	}
	b.WriteByte('\n')
}

// FuzzSegment: any string, CJK or not, valid UTF-8 or not, segments
// without panicking into words that appear in the run in order, without
// overlap, and every expansion weighted in (0, 1] or a glossary one (0).
func FuzzSegment(f *testing.F) {
	for _, s := range []string{"把这个议题分配给张三", "天气预报汇率", "推敲", "敲", "\xff\xfe世界", "𪢌哰", "ｇｉｔｈｕｂ的仓库", ""} {
		f.Add(s)
	}
	v := DefaultVocabulary()
	f.Fuzz(func(t *testing.T, run string) {
		rest := strings.ToLower(run)
		v.segment(run, func(seg string, exp []expansion) {
			i := strings.Index(rest, seg)
			if seg == "" || i < 0 {
				t.Fatalf("segment %q not found in order in %q", seg, run)
			}
			rest = rest[i+len(seg):]
			for _, e := range exp {
				if e.w < 0 || e.w > 1 || len(e.terms) == 0 {
					t.Fatalf("%q: expansion %+v", seg, e)
				}
			}
		})
	})
}

// BenchmarkSegment measures segmenting and translating a Chinese query,
// with CC-CEDICT and with the glossary alone: the cost CC-CEDICT adds to
// a query, whatever the catalog's size.
func BenchmarkSegment(b *testing.B) {
	for _, src := range []struct {
		name string
		zh   zhSources
	}{{"glossary", zhGlossary}, {"glossary+cedict", zhDefault}} {
		v := DefaultVocabulary().clone()
		v.zh = src.zh
		for _, run := range []string{"创建拉取请求", "把这个议题分配给张三然后查看天气预报"} {
			b.Run(src.name+"/"+run, func(b *testing.B) {
				v.segment(run, func(string, []expansion) {}) // load the tables
				b.ReportAllocs()
				for b.Loop() {
					v.segment(run, func(string, []expansion) {})
				}
			})
		}
	}
}

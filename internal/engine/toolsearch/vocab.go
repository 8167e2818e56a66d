package toolsearch

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/cedict"
)

//go:embed data/*.txt
var dataFS embed.FS

// Vocabulary is the built-in ranker's hand-written query vocabulary:
// abbreviations ("PR" → "pull request", "k8s" → "kubernetes") and a
// bilingual glossary ("截图" → "screenshot"); general English synonyms come
// from WordNet. It expands a query with words the catalog is likely to
// use, each expansion an alternative weighted below the query's own word.
// A Vocabulary is immutable and safe for concurrent use.
//
// The text format, one rule per line ('#' starts a comment line):
//
//	a | b | c      the terms are interchangeable
//	a => b | c     one way: a also searches b and c
//
// A term may be several words; a term written in CJK is a word of the
// segmenter: a CJK run is split by longest match over these terms, and a
// term fires only where it is a whole word. The shipped files are in
// data.
type Vocabulary struct {
	// latin maps a space-joined sequence of analysed terms to the terms it
	// expands to.
	latin     map[string][]expansion
	maxPhrase int
	// cjk maps a CJK key to the terms it expands to.
	cjk    map[string][]expansion
	maxCJK int // longest key, in runes
	// zh says which Chinese sources segment and translate: the glossary
	// (cjk), CC-CEDICT (package internal/engine/cedict), or both.
	zh zhSources
}

// DefaultVocabulary returns the vocabulary shipped in data.
func DefaultVocabulary() *Vocabulary {
	v, err := NewVocabulary()
	if err != nil {
		panic(err) // the embedded files are tested
	}
	return v
}

// shippedVocabulary parses data once per process. The result is
// immutable (every Vocabulary is), so it is shared rather than re-parsed for
// each searcher: parsing took about 40% of building a searcher.
var shippedVocabulary = sync.OnceValues(func() (*Vocabulary, error) {
	v := &Vocabulary{latin: map[string][]expansion{}, cjk: map[string][]expansion{}, zh: zhDefault}
	files, err := fs.Glob(dataFS, "data/*.txt")
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	for _, f := range files {
		b, err := dataFS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := v.parse(f, string(b)); err != nil {
			return nil, err
		}
	}
	return v, nil
})

// NewVocabulary returns the shipped vocabulary extended by texts, each in
// the format of [Vocabulary]. Errors wrap [ErrVocabulary] and name the line.
func NewVocabulary(texts ...string) (*Vocabulary, error) {
	base, err := shippedVocabulary()
	if err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return base, nil
	}
	v := base.clone()
	for i, t := range texts {
		if err := v.parse(fmt.Sprintf("Options.Vocabulary[%d]", i), t); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// clone returns a deep copy that parse may extend without touching v.
func (v *Vocabulary) clone() *Vocabulary {
	c := *v
	c.latin = make(map[string][]expansion, len(v.latin))
	for k, e := range v.latin {
		c.latin[k] = slices.Clone(e)
	}
	c.cjk = make(map[string][]expansion, len(v.cjk))
	for k, e := range v.cjk {
		c.cjk[k] = slices.Clone(e)
	}
	return &c
}

func (v *Vocabulary) parse(name, text string) error {
	if !utf8.ValidString(text) {
		return fmt.Errorf("%w: %s: not valid UTF-8", ErrVocabulary, name)
	}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lhs, rhs, oneWay := strings.Cut(line, "=>")
		from := splitAlts(lhs)
		to := from
		if oneWay {
			to = splitAlts(rhs)
		}
		if len(from) == 0 || len(to) == 0 || (!oneWay && len(from) < 2) {
			return fmt.Errorf("%w: %s, line %d: %q: want \"a | b\" or \"a => b | c\"", ErrVocabulary, name, n+1, line)
		}
		for _, f := range from {
			for i, t := range to {
				if f != t {
					v.add(f, t, oneWay && i > 0)
				}
			}
		}
	}
	return nil
}

func splitAlts(s string) []string {
	var out []string
	for _, a := range strings.Split(s, "|") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// expansion is one alternative a query word expands to: its analysed
// terms ("pull request": pull, request), searched together. alt marks a
// one-way rule's second or later alternative ("列出 => list | all":
// "all"), which counts less than the first.
type expansion struct {
	terms []string
	alt   bool
	// w, when not 0, is the expansion's own weight (a back-off through
	// shared characters, see [Vocabulary.backoff], or a dictionary
	// translation, see [Vocabulary.dictionary]); via then says which.
	w   float64
	via string
}

// add records that the term from expands to the terms of to.
func (v *Vocabulary) add(from, to string, alt bool) {
	var plain []string
	terms(to, func(t string, cjk bool) {
		if !cjk {
			plain = append(plain, t)
		}
	})
	if len(plain) == 0 {
		return
	}
	exp := expansion{terms: plain, alt: alt}
	if hasCJK(from) {
		key := strings.ToLower(strings.TrimSpace(from))
		v.cjk[key] = mergeExpansion(v.cjk[key], exp)
		v.maxCJK = max(v.maxCJK, utf8.RuneCountInString(key))
		return
	}
	var seq []string
	terms(from, func(t string, cjk bool) { seq = append(seq, t) })
	if len(seq) == 0 {
		return
	}
	key := strings.Join(seq, " ")
	if key == strings.Join(plain, " ") {
		return
	}
	v.latin[key] = mergeExpansion(v.latin[key], exp)
	v.maxPhrase = max(v.maxPhrase, len(seq))
}

// mergeExpansion adds e to dst; an expansion already there keeps the
// stronger (non-alternative) mark.
func mergeExpansion(dst []expansion, e expansion) []expansion {
	i := slices.IndexFunc(dst, func(d expansion) bool { return slices.Equal(d.terms, e.terms) })
	switch {
	case i < 0:
		dst = append(dst, e)
	case !e.alt:
		dst[i].alt = false
	}
	return dst
}

// known reports whether a single analysed term has synonyms.
func (v *Vocabulary) known(term string) bool {
	_, ok := v.latin[term]
	return ok
}

// expandLatin calls emit for every expansion of a phrase of seq starting at
// i, with the phrase's length.
func (v *Vocabulary) expandLatin(seq []string, i int, emit func(exp []expansion, n int)) {
	var b strings.Builder
	for n := 1; n <= v.maxPhrase && i+n <= len(seq); n++ {
		if n > 1 {
			b.WriteByte(' ')
		}
		b.WriteString(seq[i+n-1])
		if exp, ok := v.latin[b.String()]; ok {
			emit(exp, n)
		}
	}
}

// zhFunctionWords are Chinese pronouns, particles and politeness words:
// words of the segmenter's list that say nothing about a tool, so they
// are skipped, and mark the boundaries a one-character glossary key needs.
var zhFunctionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`的 了 吗 呢 吧 啊 呀 把 给 请 在 和 与 及 并 或 是 个 我 你 他 她 它 这 那 都 也 就 再 还 要 想 能 会 让 被
	一下 一个 一些 我们 你们 他们 可以 需要 帮我 帮忙 麻烦 这个 那个 这些 那些 如何 怎么 怎样 什么 哪个 然后 并且 或者 以及 里面 当前 现在`) {
		m[w] = true
	}
	return m
}()

// maxFunctionWord is the longest of zhFunctionWords, in runes.
const maxFunctionWord = 2

// segment splits a CJK run into words by longest match over the union of
// the glossary's keys, zhFunctionWords and CC-CEDICT's headwords (on equal
// length in that order), and calls emit for each word with its
// expansions: a glossary word's translations; for a CC-CEDICT word the
// glossary lacks, CC-CEDICT's translations (see [Vocabulary.dictionary])
// and the back-off through shared characters; for a stretch neither
// knows, the back-off (nil when it has none). Function words are skipped.
// A one-character key counts as a word only between other known words or
// at the run's ends: 推敲 ("deliberate") is a word of its own, and even
// without it the 敲 of 敲键 ("type") would not fire inside it.
func (v *Vocabulary) segment(run string, emit func(seg string, exp []expansion)) {
	const (
		unknown = iota
		key
		function
		dictWord // a CC-CEDICT headword the glossary lacks
	)
	type seg struct {
		start, end int
		kind       int
	}
	run = strings.ToLower(run)
	// off[i] is the byte offset of rune i: candidate words are substrings
	// of run, so trying them allocates nothing.
	off := make([]int, 0, len(run)/3+2)
	for i := range run {
		off = append(off, i)
	}
	off = append(off, len(run))
	nr := len(off) - 1
	glossary, dict := v.zh&zhGlossary != 0, v.zh&zhCEDICT != 0
	longest := maxFunctionWord
	if glossary {
		longest = max(longest, v.maxCJK)
	}
	if dict {
		longest = max(longest, cedict.MaxRunes())
	}
	var segs []seg
	for i := 0; i < nr; {
		s := seg{i, i + 1, unknown}
		for n := min(longest, nr-i); n >= 1; n-- {
			w := run[off[i]:off[i+n]]
			if _, ok := v.cjk[w]; ok && glossary {
				s = seg{i, i + n, key}
				break
			}
			if zhFunctionWords[w] {
				s = seg{i, i + n, function}
				break
			}
			if _, ok := cedict.Lookup(w); ok && dict {
				s = seg{i, i + n, dictWord}
				break
			}
		}
		segs = append(segs, s)
		i = s.end
	}
	known := func(k int) bool { return k < 0 || k >= len(segs) || segs[k].kind != unknown }
	for k := range segs {
		if (segs[k].kind == key || segs[k].kind == dictWord) && segs[k].end-segs[k].start == 1 && !(known(k-1) && known(k+1)) {
			segs[k].kind = unknown
		}
	}
	for k := 0; k < len(segs); {
		switch segs[k].kind {
		case function:
			k++
		case key:
			w := run[off[segs[k].start]:off[segs[k].end]]
			exp := v.cjk[w]
			if v.zh&(zhCEDICT|zhMerge) == zhCEDICT|zhMerge {
				exp = v.withDictionary(exp, w)
			}
			emit(w, exp)
			k++
		case dictWord:
			// CC-CEDICT's translations, and the back-off through the
			// glossary's words that share its characters: each an
			// alternative, the best one counts.
			w := run[off[segs[k].start]:off[segs[k].end]]
			exp := v.dictionary(w)
			if glossary {
				exp = append(exp, v.backoff(w)...)
			}
			emit(w, exp)
			k++
		default:
			j := k
			for j < len(segs) && segs[j].kind == unknown {
				j++
			}
			w := run[off[segs[k].start]:off[segs[j-1].end]]
			var exp []expansion
			if glossary {
				exp = v.backoff(w)
			}
			emit(w, exp)
			k = j
		}
	}
}

// weightBackoff is the weight of a glossary key's translation reached
// through characters an unknown word shares with it, times the share of
// the key's characters the word has: at most 0.3, well below a
// translation of a word the glossary knows (1.0). Set on the dev set's
// tune half with the glossary as shipped and with every key but the first
// of each line removed (the unseen-word case): 0.3 gained as much as 0.5
// or 0.7 there without their loss on the check half of the reduced run.
const weightBackoff = 0.3

// backoff returns, for a CJK word the glossary does not know, the
// translations of the glossary's keys of two or more characters that share
// characters with it, each weighted by weightBackoff × the share of the
// key's characters the word has (× weightAltTranslation for a key's
// second or later translation); a translation reached through several
// keys keeps its best weight. Chinese compounds share their morphemes
// (抓取, 获取 and 读取 all take 取, "take"): a word the glossary lacks is
// likely to mean something near what the known words built from its
// characters mean, and as one alternative among others of its word it
// weighs at most what its best match does. The result does not depend on
// map order: keys are taken best share first, then in byte order.
func (v *Vocabulary) backoff(word string) []expansion {
	rs := []rune(word)
	if len(rs) < 2 {
		return nil
	}
	type cand struct {
		key   string
		share float64
	}
	var cs []cand
	for k := range v.cjk {
		n, l := 0, 0
		for _, r := range k {
			l++
			if slices.Contains(rs, r) {
				n++
			}
		}
		if n > 0 && l >= 2 {
			cs = append(cs, cand{k, float64(n) / float64(l)})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.share != b.share {
			if a.share > b.share {
				return -1
			}
			return 1
		}
		return strings.Compare(a.key, b.key)
	})
	var out []expansion
	for _, c := range cs {
		for _, e := range v.cjk[c.key] {
			w := weightBackoff * c.share
			if e.alt {
				w *= weightAltTranslation
			}
			if i := slices.IndexFunc(out, func(o expansion) bool { return slices.Equal(o.terms, e.terms) }); i >= 0 {
				out[i].w = max(out[i].w, w)
				continue
			}
			out = append(out, expansion{terms: e.terms, w: w, via: viaBackoff})
		}
	}
	return out
}

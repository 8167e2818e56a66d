package search

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:embed data/*.txt
var dataFS embed.FS

// Vocabulary is the built-in ranker's query vocabulary: tool-domain synonyms
// ("PR" → "pull request", "k8s" → "kubernetes") and a bilingual glossary
// ("截图" → "screenshot"). It expands a query with words the catalog is
// likely to use. A Vocabulary is immutable and safe for concurrent use.
//
// The text format, one rule per line ('#' starts a comment line):
//
//	a | b | c      the terms are interchangeable
//	a => b | c     one way: a also searches b and c
//
// A term may be several words; a term written in CJK matches as a substring
// of the query, longest first. The shipped files are in search/data.
type Vocabulary struct {
	// latin maps a space-joined sequence of analysed terms to the terms it
	// expands to.
	latin     map[string][]expTerm
	maxPhrase int
	// cjk maps a CJK key to the terms it expands to.
	cjk    map[string][]expTerm
	maxCJK int // longest key, in runes
}

// DefaultVocabulary returns the vocabulary shipped in search/data.
func DefaultVocabulary() *Vocabulary {
	v, err := NewVocabulary()
	if err != nil {
		panic(err) // the embedded files are tested
	}
	return v
}

// shippedVocabulary parses search/data once per process. The result is
// immutable (every Vocabulary is), so it is shared rather than re-parsed for
// each searcher: parsing took about 40% of building a searcher.
var shippedVocabulary = sync.OnceValues(func() (*Vocabulary, error) {
	v := &Vocabulary{latin: map[string][]expTerm{}, cjk: map[string][]expTerm{}}
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
	c.latin = make(map[string][]expTerm, len(v.latin))
	for k, e := range v.latin {
		c.latin[k] = slices.Clone(e)
	}
	c.cjk = make(map[string][]expTerm, len(v.cjk))
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

// expTerm is one term of an expansion. alt marks a term of a one-way
// rule's second or later alternative ("列出 => list | all": "all"), which
// counts less than the first.
type expTerm struct {
	term string
	alt  bool
}

// add records that the term from expands to the terms of to.
func (v *Vocabulary) add(from, to string, alt bool) {
	var exp []expTerm
	var plain []string
	terms(to, func(t string, cjk bool) {
		if !cjk {
			exp = append(exp, expTerm{t, alt})
			plain = append(plain, t)
		}
	})
	if len(exp) == 0 {
		return
	}
	if hasCJK(from) {
		key := strings.ToLower(strings.TrimSpace(from))
		v.cjk[key] = mergeTerms(v.cjk[key], exp)
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
	v.latin[key] = mergeTerms(v.latin[key], exp)
	v.maxPhrase = max(v.maxPhrase, len(seq))
}

// mergeTerms adds terms to dst; a term already there keeps the stronger
// (non-alternative) mark.
func mergeTerms(dst, add []expTerm) []expTerm {
	for _, t := range add {
		i := slices.IndexFunc(dst, func(e expTerm) bool { return e.term == t.term })
		switch {
		case i < 0:
			dst = append(dst, t)
		case !t.alt:
			dst[i].alt = false
		}
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
func (v *Vocabulary) expandLatin(seq []string, i int, emit func(terms []expTerm, n int)) {
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

// expandCJK scans a CJK run for glossary keys, longest match first, and
// calls emit with each match's expansion.
func (v *Vocabulary) expandCJK(run string, emit func(terms []expTerm)) {
	rs := []rune(strings.ToLower(run))
	for i := 0; i < len(rs); {
		matched := 0
		for n := min(v.maxCJK, len(rs)-i); n >= 1; n-- {
			if exp, ok := v.cjk[string(rs[i:i+n])]; ok {
				emit(exp)
				matched = n
				break
			}
		}
		if matched == 0 {
			matched = 1
		}
		i += matched
	}
}

package toolsearch

import (
	"slices"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/cedict"
)

// zhSources says which Chinese sources segment a CJK run and translate
// its words.
type zhSources uint8

const (
	// zhGlossary: the hand-written glossary (data/glossary-zh.txt)
	// and the back-off through its keys' characters.
	zhGlossary zhSources = 1 << iota
	// zhCEDICT: CC-CEDICT's headwords and translations (internal/engine/cedict).
	zhCEDICT
	// zhMerge: a word the glossary knows also gets its CC-CEDICT
	// translations (below the glossary's); without it the glossary alone
	// translates the words it knows.
	zhMerge
	// zhDefault is what the shipped vocabulary uses.
	zhDefault = zhGlossary | zhCEDICT
)

// Weights of a CC-CEDICT translation: weightDict for a headword's first,
// weightDictAlt for the later ones. Below a glossary translation (1.0,
// written for the tool domain), above the back-off through shared
// characters (at most 0.3, a guess from morphemes).
const (
	weightDict    = 0.7
	weightDictAlt = 0.5
)

// viaDictionary and viaBackoff name the sources of weighted expansions in
// explanations.
const (
	viaDictionary = "translation from CC-CEDICT"
	viaBackoff    = "translation by shared characters"
)

// dictionary returns the CC-CEDICT translations of a Chinese word as
// expansions, best first, each weighted by its rank; nil for a word
// CC-CEDICT does not translate (a name, a place) and for a single
// character: CC-CEDICT lists a character's senses as a morpheme and as a
// function word (里 "lining; interior; inside; neighbourhood", 到 "to
// reach; to arrive; to leave for"), which name no capability. A
// character is still a word of the segmenter, so it is not read as part
// of its neighbours, and the glossary may translate it.
func (v *Vocabulary) dictionary(word string) []expansion {
	if utf8.RuneCountInString(word) < 2 {
		return nil
	}
	tr, _ := cedict.Lookup(word)
	var out []expansion
	for i, t := range tr {
		var ts []string
		terms(t, func(s string, cjk bool) {
			if !cjk {
				ts = append(ts, s)
			}
		})
		if len(ts) == 0 || slices.ContainsFunc(out, func(o expansion) bool { return slices.Equal(o.terms, ts) }) {
			continue
		}
		w := weightDict
		if i > 0 {
			w = weightDictAlt
		}
		out = append(out, expansion{terms: ts, w: w, via: viaDictionary})
	}
	return out
}

// withDictionary returns the glossary's expansions of word followed by
// the CC-CEDICT translations it does not already have.
func (v *Vocabulary) withDictionary(exp []expansion, word string) []expansion {
	d := v.dictionary(word)
	if len(d) == 0 {
		return exp
	}
	out := slices.Clip(exp)
	for _, e := range d {
		if !slices.ContainsFunc(out, func(o expansion) bool { return slices.Equal(o.terms, e.terms) }) {
			out = append(out, e)
		}
	}
	return out
}

// Package build turns CC-CEDICT's text file into the compact table that
// package cedict embeds: simplified headwords and a few plain English
// translations each. It runs at development time only (internal/gen and
// the regeneration test); the library never reads CC-CEDICT at run time.
package build

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/gztext"
)

// Options are the generator's choices; every one is general, none was
// made by looking at a search query.
type Options struct {
	// MaxRunes is the longest headword kept, in characters: longer
	// entries are idioms and set phrases a tool query does not use, and
	// they would lengthen every segmentation step.
	MaxRunes int
	// MaxSenses is how many of an entry's senses (its "/"-separated
	// definitions that survive the filters) give translations.
	MaxSenses int
	// MaxPerSense is how many glosses (";"-separated) of one sense are
	// kept.
	MaxPerSense int
	// MaxTranslations bounds the translations of one headword, over all
	// its entries.
	MaxTranslations int
	// MaxWords is the most English words a translation may have.
	MaxWords int
}

// DefaultOptions are the options the embedded file was built with.
var DefaultOptions = Options{MaxRunes: 6, MaxSenses: 4, MaxPerSense: 2, MaxTranslations: 6, MaxWords: 2}

// ErrFormat reports a line that is not a CC-CEDICT entry.
var ErrFormat = errors.New("cedict build: not a CC-CEDICT line")

// Stats counts what a build kept.
type Stats struct {
	Entries      int // entry lines read
	Headwords    int // simplified headwords written
	Translated   int // of those, with at least one translation
	Translations int // translations written
}

// Build reads a CC-CEDICT file (plain or gzipped, format
// "trad simp [pin1 yin1] /sense/sense/") and returns the table's text:
// '#' header lines (source digest, date, entry count, licence, options),
// then one line per simplified headword, sorted:
//
//	删除	delete|cancel
//	张三
//
// a headword, and when it has any, a tab and its translations joined by
// '|', best first. A headword without translations is still a word for
// segmentation (a name, a place).
func Build(src []byte, o Options) ([]byte, Stats, error) {
	var st Stats
	if bytes.HasPrefix(src, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, st, fmt.Errorf("gunzip: %w", err)
		}
		if src, err = io.ReadAll(zr); err != nil {
			return nil, st, fmt.Errorf("gunzip: %w", err)
		}
	}
	sum := sha256.Sum256(src)
	heads, date, declared, err := readHeads(src, o, &st)
	if err != nil {
		return nil, st, err
	}
	keys := make([]string, 0, len(heads))
	for k := range heads {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# CC-CEDICT (https://www.mdbg.net/chinese/dictionary?page=cc-cedict), published by MDBG,\n")
	fmt.Fprintf(&b, "# licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); derived by toolshelf's internal/engine/cedict/internal/gen.\n")
	fmt.Fprintf(&b, "# CEDICT - Copyright (C) 1997, 1998 Paul Andrew Denisowski.\n")
	fmt.Fprintf(&b, "# sha256 %s (uncompressed source)\n", hex.EncodeToString(sum[:]))
	fmt.Fprintf(&b, "# date %s, %s entries declared, %d read\n", date, declared, st.Entries)
	fmt.Fprintf(&b, "# options max-runes=%d max-senses=%d max-per-sense=%d max-translations=%d max-words=%d\n",
		o.MaxRunes, o.MaxSenses, o.MaxPerSense, o.MaxTranslations, o.MaxWords)
	for _, k := range keys {
		st.Headwords++
		b.WriteString(k)
		if tr := heads[k].translations(o); len(tr) > 0 {
			st.Translated++
			st.Translations += len(tr)
			b.WriteByte('\t')
			b.WriteString(strings.Join(tr, "|"))
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), st, nil
}

// reading is one entry's translations; a headword may have several
// entries (pronunciations: 看 kan1 "to look after", kan4 "to see; to read;
// to watch; ...").
type reading struct {
	glosses int
	trans   []string
}

type head struct {
	readings []reading
}

// translations are the headword's translations, at most
// o.MaxTranslations, without repeats. The reading with the most glosses
// comes first: CC-CEDICT describes a character's common reading at length
// and a rare one briefly (读 du2 "to read out; to read aloud; to read;
// ...", dou4 "comma"). The sort is stable: file order breaks ties.
func (h *head) translations(o Options) []string {
	rs := h.readings
	slices.SortStableFunc(rs, func(a, b reading) int { return b.glosses - a.glosses })
	var tr []string
	for _, r := range rs {
		for _, t := range r.trans {
			if len(tr) < o.MaxTranslations && !slices.Contains(tr, t) {
				tr = append(tr, t)
			}
		}
	}
	return tr
}

// readHeads reads the dictionary's entries by headword, with the date and
// entry count its header declares, counting what it reads in st.
func readHeads(src []byte, o Options, st *Stats) (map[string]*head, string, string, error) {
	var date, declared string
	heads := map[string]*head{}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if v, ok := strings.CutPrefix(line, "#! date="); ok {
			date = v
		}
		if v, ok := strings.CutPrefix(line, "#! entries="); ok {
			declared = v
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			return nil, "", "", fmt.Errorf("line %d: %w", n, err)
		}
		st.Entries++
		if !keepHeadword(e.simp, o.MaxRunes) {
			continue
		}
		h := heads[e.simp]
		if h == nil {
			h = &head{}
			heads[e.simp] = h
		}
		if properNoun(e.pinyin) {
			continue // a word for segmentation, translated by nothing
		}
		h.readings = append(h.readings, reading{glossCount(e.senses), translations(e.senses, o)})
	}
	if err := sc.Err(); err != nil {
		return nil, "", "", err
	}
	if date == "" {
		return nil, "", "", fmt.Errorf("%w: no \"#! date=\" header", ErrFormat)
	}
	return heads, date, declared, nil
}

type entry struct {
	simp, pinyin string
	senses       []string
}

// parseLine splits "trad simp [pinyin] /a/b/".
func parseLine(line string) (entry, error) {
	trad, rest, ok1 := strings.Cut(line, " ")
	simp, rest, ok2 := strings.Cut(rest, " [")
	pinyin, defs, ok3 := strings.Cut(rest, "] /")
	if !ok1 || !ok2 || !ok3 || trad == "" || simp == "" || !strings.HasSuffix(defs, "/") {
		return entry{}, fmt.Errorf("%w: %q", ErrFormat, line)
	}
	return entry{simp: simp, pinyin: pinyin, senses: strings.Split(strings.TrimSuffix(defs, "/"), "/")}, nil
}

// keepHeadword: Han characters only (a query's CJK run holds no Latin
// letters or digits), at most max of them.
func keepHeadword(w string, max int) bool {
	if n := utf8.RuneCountInString(w); n == 0 || n > max {
		return false
	}
	for _, r := range w {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

// properNoun: CC-CEDICT capitalises the pinyin of names of people, places
// and organisations (Zhang1 San1, Bei3 jing1).
func properNoun(pinyin string) bool {
	for _, syl := range strings.Fields(pinyin) {
		if r, _ := utf8.DecodeRuneInString(syl); unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// skipSense marks senses that are references or grammar, not meanings:
// classifiers, variants, cross-references, surnames, pronunciations.
var skipSense = []string{
	"cl:", "variant of", "old variant", "archaic variant", "erhua variant", "japanese variant",
	"see ", "see:", "used in", "surname", "abbr. for", "abbr. of", "abbr. to",
	"also pr.", "pr. ", "also written", "also called", "classifier", "(classifier", "(literary)", "(archaic)", "(old)", "(dialect)",
	"(tw)", "(taiwan", "(cantonese)", "(slang)", "(onom.)", "(name)", "(place name)",
	"lit.", "fig.", "(idiom)",
}

// dropWords are placeholders and articles CC-CEDICT glosses carry that
// name no capability.
var dropWords = map[string]bool{
	"sb": true, "sth": true, "sb's": true, "sth's": true, "one's": true, "oneself": true, "etc": true,
	"a": true, "an": true, "the": true, "to": true, "something": true, "someone": true, "somebody": true,
}

// glossCount counts an entry's glosses: its senses and their
// ";"-separated parts.
func glossCount(senses []string) int {
	n := 0
	for _, s := range senses {
		n += 1 + strings.Count(s, ";")
	}
	return n
}

// translations returns the plain English translations of an entry's
// senses, best first.
func translations(senses []string, o Options) []string {
	var out []string
	kept := 0
	for _, s := range senses {
		if kept == o.MaxSenses {
			break
		}
		ls := strings.ToLower(strings.TrimSpace(s))
		if slices.ContainsFunc(skipSense, func(p string) bool { return strings.HasPrefix(ls, p) }) {
			continue
		}
		n := 0
		for g := range strings.SplitSeq(s, ";") {
			if n == o.MaxPerSense {
				break
			}
			if t, ok := gloss(g, o.MaxWords); ok && !slices.Contains(out, t) {
				out = append(out, t)
				n++
			}
		}
		if n > 0 {
			kept++
		}
	}
	return out
}

// gloss cleans one gloss: parentheticals removed ("(computing) database"),
// the infinitive's "to" and the placeholders sb/sth dropped; it keeps the
// result when it is 1 to maxWords plain English words (lower-case ASCII
// letters, as written: a capitalised gloss is a name).
func gloss(g string, maxWords int) (string, bool) {
	var b strings.Builder
	depth := 0
	for _, r := range g {
		switch {
		case r == '(' || r == '[':
			depth++
		case r == ')' || r == ']':
			depth = max(depth-1, 0)
		case depth == 0:
			b.WriteRune(r)
		}
	}
	var words []string
	for _, w := range strings.Fields(b.String()) {
		w = strings.Trim(w, ",.!?:\"")
		if w == "" || dropWords[w] {
			continue
		}
		for _, r := range w {
			if r < 'a' || r > 'z' {
				if r != '-' {
					return "", false
				}
			}
		}
		if strings.HasPrefix(w, "-") || strings.HasSuffix(w, "-") || len(w) < 2 {
			return "", false
		}
		words = append(words, w)
	}
	if len(words) == 0 || len(words) > maxWords {
		return "", false
	}
	return strings.Join(words, " "), true
}

// Gzip compresses text at the best level with a zero header (no name, no
// time), so the embedded file is a function of the source alone.
func Gzip(text []byte) ([]byte, error) { return gztext.Gzip(text) }

package stem

// The steps below mirror english.sbl one routine each. Snowball's "among"
// picks the longest listed suffix that the word ends with and then runs
// that suffix's action; if the action's condition fails, the step does
// nothing (it never falls back to a shorter suffix). The suffix tables are
// therefore kept sorted longest first and the first hit is the match.

// stackWord is the length up to which Stem works in a stack buffer; longer
// words (rare in tool text) cost one extra allocation.
const stackWord = 64

// Stem returns the Snowball English stem of word, which should be lower
// case. Words shorter than three bytes and words that are not pure ASCII
// are returned unchanged. The result is a substring of word whenever the
// stem is a prefix of it, so most calls do not allocate.
func Stem(word string) string {
	if len(word) < 3 || !isASCII(word) {
		return word
	}
	if s, ok := exception1(word); ok {
		return s
	}
	var buf [stackWord]byte
	var b []byte
	if len(word) <= stackWord {
		b = buf[:len(word)]
		copy(b, word)
	} else {
		b = []byte(word)
	}
	b = stemBytes(b)
	if string(b) == word[:len(b)] {
		return word[:len(b)]
	}
	return string(b)
}

// AppendStem appends the stem of word to dst and returns the extended
// slice, as [Stem] would compute it. It allocates only when dst lacks room
// for len(word) more bytes.
func AppendStem(dst []byte, word string) []byte {
	if len(word) < 3 || !isASCII(word) {
		return append(dst, word...)
	}
	if s, ok := exception1(word); ok {
		return append(dst, s...)
	}
	start := len(dst)
	dst = append(dst, word...)
	// A stem is never longer than its word, so the steps' rewrites stay
	// inside the room just made and the result aliases dst.
	s := stemBytes(dst[start:len(dst):len(dst)])
	return dst[:start+len(s)]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// exception1 is english.sbl's exception1: whole words with a fixed stem.
func exception1(w string) (string, bool) {
	switch w {
	case "skis":
		return "ski", true
	case "skies":
		return "sky", true
	case "idly":
		return "idl", true
	case "gently":
		return "gentl", true
	case "ugly":
		return "ugli", true
	case "early":
		return "earli", true
	case "only":
		return "onli", true
	case "singly":
		return "singl", true
	case "sky", "news", "howe", "atlas", "cosmos", "bias", "andes":
		return w, true
	}
	return "", false
}

// word is the state of one stemming: the text being rewritten in place and
// the starts of the regions R1 and R2.
type word struct {
	b      []byte
	p1, p2 int
}

// stemBytes stems b (at least three ASCII bytes, not an exception1 word)
// in place and returns the stem, a prefix of b's backing array.
func stemBytes(b []byte) []byte {
	w := word{b: b}
	yFound := w.prelude()
	w.markRegions()
	w.step1a()
	w.step1b()
	w.step1c()
	w.step2()
	w.step3()
	w.step4()
	w.step5()
	if yFound {
		for i, c := range w.b {
			if c == 'Y' {
				w.b[i] = 'y'
			}
		}
	}
	return w.b
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// prelude drops one leading apostrophe and marks as 'Y' each 'y' that is
// initial or follows a vowel, so later steps treat it as a consonant. It
// reports whether it marked any.
func (w *word) prelude() bool {
	if w.b[0] == '\'' {
		// Shift rather than reslice so the stem keeps starting where the
		// caller's buffer does.
		copy(w.b, w.b[1:])
		w.b = w.b[:len(w.b)-1]
	}
	found := false
	for i, c := range w.b {
		// Left to right, so a 'y' just turned into 'Y' is no longer a
		// vowel for the next letter, exactly like Snowball's repeat/goto.
		if c == 'y' && (i == 0 || isVowel(w.b[i-1])) {
			w.b[i] = 'Y'
			found = true
		}
	}
	return found
}

// rPrefix holds, by first letter, the word start english.sbl takes as the
// whole of the region before R1 (gener, commun, arsen, past, univers,
// later, emerg, organ, inter), so generate/general/generic do not all
// reduce to gener. No two share a first letter.
var rPrefix = [128]string{
	'g': "gener", 'c': "commun", 'a': "arsen", 'p': "past", 'u': "univers",
	'l': "later", 'e': "emerg", 'o': "organ", 'i': "inter",
}

// afterVC returns the position after the first non-vowel that follows a
// vowel at or after i, or len(b) if there is none.
func afterVC(b []byte, i int) int {
	for i < len(b) && !isVowel(b[i]) {
		i++
	}
	if i == len(b) {
		return len(b)
	}
	i++
	for i < len(b) && isVowel(b[i]) {
		i++
	}
	if i == len(b) {
		return len(b)
	}
	return i + 1
}

func (w *word) markRegions() {
	n := len(w.b)
	w.p1, w.p2 = n, n
	p1 := -1
	if c := w.b[0]; c < 128 {
		if p := rPrefix[c]; p != "" && hasPrefix(w.b, p) {
			p1 = len(p)
		}
	}
	if p1 < 0 {
		p1 = afterVC(w.b, 0)
		if p1 == n {
			return
		}
	}
	w.p1 = p1
	w.p2 = afterVC(w.b, p1)
}

// hasSuffix compares byte by byte from the end: suffixes are short and
// most mismatches show in the last letter or two, where a memequal call
// would cost more than the comparison.
func (w *word) hasSuffix(s string) bool {
	return hasSuffix(w.b, s)
}

func hasSuffix(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	b = b[len(b)-len(s):]
	for i := len(s) - 1; i >= 0; i-- {
		if b[i] != s[i] {
			return false
		}
	}
	return true
}

func hasPrefix(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b[i] != s[i] {
			return false
		}
	}
	return true
}

// replace puts r in place of the last k bytes. Every rule shrinks the
// word or keeps its length, except that step 1b may add back an e after
// removing a longer ending, so the result always fits the capacity; the
// reslice instead of append keeps Stem's buffer on the stack.
func (w *word) replace(k int, r string) {
	start := len(w.b) - k
	w.b = w.b[:start+len(r)]
	copy(w.b[start:], r)
}

// shortv reports whether the text before position c ends in a short
// syllable: non-vowel, vowel, non-vowel other than w, x or Y; or a vowel
// and non-vowel that make up the whole text; or "past".
func (w *word) shortv(c int) bool {
	b := w.b
	if c >= 3 && !isVowel(b[c-1]) && b[c-1] != 'w' && b[c-1] != 'x' && b[c-1] != 'Y' &&
		isVowel(b[c-2]) && !isVowel(b[c-3]) {
		return true
	}
	if c == 2 && !isVowel(b[1]) && isVowel(b[0]) {
		return true
	}
	return c >= 4 && string(b[c-4:c]) == "past"
}

func containsVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// step1a removes possessives and plural endings.
func (w *word) step1a() {
	if last := w.b[len(w.b)-1]; last != 's' && last != 'd' && last != '\'' {
		return // fast path: no rule of this step can match
	}
	switch {
	case w.hasSuffix("'s'"):
		w.b = w.b[:len(w.b)-3]
	case w.hasSuffix("'s"):
		w.b = w.b[:len(w.b)-2]
	case w.hasSuffix("'"):
		w.b = w.b[:len(w.b)-1]
	}
	n := len(w.b)
	if n == 0 {
		return
	}
	switch {
	case w.hasSuffix("sses"):
		w.b = w.b[:n-2]
	case w.hasSuffix("ied"), w.hasSuffix("ies"):
		if n-3 >= 2 {
			w.replace(3, "i")
		} else {
			w.replace(3, "ie")
		}
	case w.hasSuffix("us"), w.hasSuffix("ss"):
	case w.hasSuffix("s"):
		// The vowel must come before the letter preceding the s: gaps ->
		// gap, but gas stays.
		if n >= 2 && containsVowel(w.b[:n-2]) {
			w.b = w.b[:n-1]
		}
	}
}

// step1b handles -eed, -ed and -ing with their adverbs in -ly.
func (w *word) step1b() {
	n := len(w.b)
	if n == 0 {
		return
	}
	if last := w.b[n-1]; last != 'd' && last != 'g' && last != 'y' {
		return // fast path: every ending here ends in d, g or y
	}
	k := 0
	switch {
	case w.hasSuffix("eedly"):
		w.eed(5)
		return
	case w.hasSuffix("ingly"):
		k = 5
	case w.hasSuffix("edly"):
		k = 4
	case w.hasSuffix("eed"):
		w.eed(3)
		return
	case w.hasSuffix("ing"):
		if w.ingException() {
			return
		}
		k = 3
	case w.hasSuffix("ed"):
		k = 2
	default:
		return
	}
	start := n - k
	if !containsVowel(w.b[:start]) {
		return
	}
	w.b = w.b[:start]
	m := start
	switch {
	case w.hasSuffix("at"), w.hasSuffix("bl"), w.hasSuffix("iz"):
		w.replace(0, "e")
	case m >= 2 && w.b[m-1] == w.b[m-2] && isUndoubled(w.b[m-1]):
		// Keep the double when a, e or o alone precedes it (add, egg, off).
		if m == 3 && (w.b[0] == 'a' || w.b[0] == 'e' || w.b[0] == 'o') {
			return
		}
		w.b = w.b[:m-1]
	default:
		if m == w.p1 && w.shortv(m) {
			w.replace(0, "e")
		}
	}
}

func isUndoubled(c byte) bool {
	switch c {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

// eed turns a final -eed or -eedly (k bytes) in R1 into -ee, except in
// proceed, exceed and succeed (and their -ly forms).
func (w *word) eed(k int) {
	start := len(w.b) - k
	if start < w.p1 {
		return
	}
	switch string(w.b[:start]) {
	case "proc", "exc", "succ":
		return
	}
	w.replace(k, "ee")
}

// ingException applies english.sbl's special -ing cases and reports
// whether one matched: dying/lying/tying/vying become die/lie/tie/vie, and
// inning, outing, canning, herring, earring and evening stay whole.
func (w *word) ingException() bool {
	pre := w.b[:len(w.b)-3]
	switch string(pre) {
	case "inn", "out", "cann", "herr", "earr", "even":
		return true
	}
	if len(pre) == 2 && pre[1] == 'y' && !isVowel(pre[0]) {
		w.replace(4, "ie")
		return true
	}
	return false
}

// step1c turns a final y after a non-vowel that is not the first letter
// into i: cry -> cri, but by and say stay.
func (w *word) step1c() {
	n := len(w.b)
	if n >= 3 && (w.b[n-1] == 'y' || w.b[n-1] == 'Y') && !isVowel(w.b[n-2]) {
		w.b[n-1] = 'i'
	}
}

// A rule is one entry of an among: a suffix and what replaces it. The
// special replacements below stand for actions with a condition.
type rule struct {
	suffix, to string
}

const (
	actLI     = "\x00li"     // delete if preceded by a valid li-ending
	actOGI    = "\x00ogi"    // -> og if preceded by l
	actR2     = "\x00r2"     // delete if in R2
	actION    = "\x00ion"    // delete if preceded by s or t
	actDelete = "\x00delete" // delete
)

// An among is a step's rules indexed by their last letter, each list
// longest first, so a lookup compares only the few suffixes that can
// match (the linear scan over all rules measured 40% of Stem's time).
type among [128][]rule

func newAmong(rules []rule) *among {
	var a among
	for _, r := range rules {
		c := r.suffix[len(r.suffix)-1]
		a[c] = append(a[c], r)
	}
	return &a
}

// match returns the longest rule whose suffix ends the word.
func (w *word) match(a *among) (rule, bool) {
	n := len(w.b)
	if n == 0 || w.b[n-1] >= 128 {
		return rule{}, false
	}
	for _, r := range a[w.b[n-1]] {
		if hasSuffix(w.b, r.suffix) {
			return r, true
		}
	}
	return rule{}, false
}

var step2 = newAmong([]rule{
	{"ational", "ate"}, {"fulness", "ful"}, {"iveness", "ive"}, {"ization", "ize"}, {"ousness", "ous"},
	{"biliti", "ble"}, {"lessli", "less"}, {"tional", "tion"},
	{"alism", "al"}, {"aliti", "al"}, {"ation", "ate"}, {"entli", "ent"}, {"fulli", "ful"},
	{"iviti", "ive"}, {"ogist", "og"}, {"ousli", "ous"},
	{"abli", "able"}, {"alli", "al"}, {"anci", "ance"}, {"ator", "ate"}, {"enci", "ence"}, {"izer", "ize"},
	{"bli", "ble"}, {"ogi", actOGI},
	{"li", actLI},
})

var step3 = newAmong([]rule{
	{"ational", "ate"},
	{"tional", "tion"},
	{"alize", "al"}, {"ative", actR2}, {"icate", "ic"}, {"iciti", "ic"},
	{"ical", "ic"}, {"ness", ""},
	{"ful", ""},
})

var step4 = newAmong([]rule{
	{"ement", actDelete},
	{"able", actDelete}, {"ance", actDelete}, {"ence", actDelete}, {"ible", actDelete}, {"ment", actDelete},
	{"ant", actDelete}, {"ate", actDelete}, {"ent", actDelete}, {"ion", actION}, {"ism", actDelete},
	{"iti", actDelete}, {"ive", actDelete}, {"ize", actDelete}, {"ous", actDelete},
	{"al", actDelete}, {"er", actDelete}, {"ic", actDelete},
})

// apply runs the step's among when the matched suffix starts at or after
// region start p.
func (w *word) apply(a *among, p int) {
	if len(w.b)-p < 2 {
		return // fast path: no rule's suffix (2 bytes or more) fits the region
	}
	r, ok := w.match(a)
	if !ok {
		return
	}
	k := len(r.suffix)
	start := len(w.b) - k
	if start < p {
		return
	}
	switch r.to {
	case actLI:
		if start > 0 && isValidLI(w.b[start-1]) {
			w.b = w.b[:start]
		}
	case actOGI:
		if start > 0 && w.b[start-1] == 'l' {
			w.replace(k, "og")
		}
	case actR2:
		if start >= w.p2 {
			w.b = w.b[:start]
		}
	case actION:
		if start > 0 && (w.b[start-1] == 's' || w.b[start-1] == 't') {
			w.b = w.b[:start]
		}
	case actDelete:
		w.b = w.b[:start]
	default:
		w.replace(k, r.to)
	}
}

// isValidLI reports whether c may precede an -li that step 2 deletes.
func isValidLI(c byte) bool {
	switch c {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

func (w *word) step2() { w.apply(step2, w.p1) }
func (w *word) step3() { w.apply(step3, w.p1) }
func (w *word) step4() { w.apply(step4, w.p2) }

// step5 removes a final e in R2, or in R1 when it does not follow a short
// syllable, and a final l after an l in R2.
func (w *word) step5() {
	n := len(w.b)
	if n == 0 {
		return
	}
	start := n - 1
	switch w.b[start] {
	case 'e':
		if start >= w.p2 || (start >= w.p1 && !w.shortv(start)) {
			w.b = w.b[:start]
		}
	case 'l':
		if start >= w.p2 && start > 0 && w.b[start-1] == 'l' {
			w.b = w.b[:start]
		}
	}
}

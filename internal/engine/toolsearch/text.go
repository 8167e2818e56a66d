package toolsearch

import (
	"strings"

	stemmer "github.com/toolshelf/toolshelf/internal/engine/stem"
	"unicode"
	"unicode/utf8"
)

// isCJK reports whether r is a Han, Hiragana, Katakana or Hangul character:
// scripts written without spaces, indexed as character bigrams.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// hasCJK reports whether s holds a CJK character.
func hasCJK(s string) bool {
	for _, r := range s {
		if isCJK(r) {
			return true
		}
	}
	return false
}

// hasLatin reports whether s holds a Latin letter.
func hasLatin(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Latin, r) {
			return true
		}
	}
	return false
}

// A piece is one run of text: a word (letters and digits) or a CJK run.
type piece struct {
	text string
	cjk  bool
	// compound marks a word that had inner separators or case changes
	// ("create_pull_request", "getFileInfo"): its parts are separate words,
	// and the joined form is also emitted so that "gitstatus" finds git_status.
	compound bool
}

// pieces splits s into words and CJK runs. Words break at anything that is
// not a letter or digit, and at camelCase boundaries ("getFileInfo" → get,
// File, Info; "HTMLParser" → HTML, Parser). Digits stay attached ("k8s").
// Words joined by "_", "-" or case changes are reported, then their compound.
func pieces(s string, emit func(piece)) {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isCJK(r):
			j := i + size
			for j < len(s) {
				r2, n := utf8.DecodeRuneInString(s[j:])
				if !isCJK(r2) {
					break
				}
				j += n
			}
			emit(piece{text: s[i:j], cjk: true})
			i = j
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// A token: letters/digits joined by single _ or - (a name).
			j := i
			parts := 0
			var compound strings.Builder
			for j < len(s) {
				start := j
				j = wordEnd(s, j)
				if j == start {
					break
				}
				sub := s[start:j]
				camel(sub, func(w string) {
					parts++
					emit(piece{text: w})
					compound.WriteString(w)
				})
				if j+1 < len(s) && (s[j] == '_' || s[j] == '-') {
					r3, _ := utf8.DecodeRuneInString(s[j+1:])
					if (unicode.IsLetter(r3) || unicode.IsDigit(r3)) && !isCJK(r3) {
						j++
						continue
					}
				}
				break
			}
			if parts > 1 && compound.Len() <= 64 {
				emit(piece{text: compound.String(), compound: true})
			}
			if j <= i {
				j = i + size
			}
			i = j
		default:
			i += size
		}
	}
}

// wordEnd returns the end of the run of letters and digits at s[i:].
func wordEnd(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isCJK(r) || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			break
		}
		i += n
	}
	return i
}

// camel splits a word at case boundaries: lower→Upper, and Upper→Upper+lower.
func camel(w string, emit func(string)) {
	start := 0
	var prev, cur rune
	prevSize := 0
	for i, r := range w {
		if i > 0 {
			cur = r
			switch {
			case unicode.IsLower(prev) && unicode.IsUpper(cur):
				emit(w[start:i])
				start = i
			case unicode.IsUpper(prev) && unicode.IsUpper(cur):
				// HTMLParser: split before the last capital of a run
				// followed by a lower-case letter.
				next, _ := utf8.DecodeRuneInString(w[i+utf8.RuneLen(r):])
				if i+utf8.RuneLen(r) < len(w) && unicode.IsLower(next) && i > start {
					emit(w[start:i])
					start = i
				}
			}
		}
		prev, prevSize = r, utf8.RuneLen(r)
	}
	_ = prevSize
	if start < len(w) {
		emit(w[start:])
	}
}

// stopWords are English function words that say nothing about a tool.
var stopWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`a an the and or but nor of to in on at by for with from as into onto
	is are was were be been being am it its it's this that these those there here
	i me my mine we us our you your he she they them their his her
	can could would should will shall may might must do does did done doing
	please want wanna need needs like let lets let's help
	some any each every such so if then than too very just also only
	what which who whom whose when where why how whether
	about via per within without over under again further once
	have has had having not no yes ok okay
	tool tools thing things something anything somehow right now currently
	one`) {
		m[w] = struct{}{}
	}
	return m
}()

// isStop reports whether the lower-case word w is a stop word.
func isStop(w string) bool {
	_, ok := stopWords[w]
	return ok
}

// stem reduces an English lower-case word to its Snowball (Porter2) stem,
// so that "creates", "created", "creating" and "create" meet. Index and
// query both go through it.
func stem(w string) string { return stemmer.Stem(w) }

// terms analyses text into index terms: words lower-cased, stop words
// dropped, stemmed; CJK runs as character bigrams (a lone character as
// itself). emit receives each term with its position among the words, so
// that multi-word synonyms can match consecutive words.
func terms(s string, emit func(term string, cjk bool)) { termsWith(s, stem, emit) }

// termsWith is [terms] with the stemmer given: an index build passes a
// cached one.
func termsWith(s string, stem func(string) string, emit func(term string, cjk bool)) {
	pieces(s, func(p piece) {
		if p.cjk {
			bigrams(p.text, func(b string) { emit(b, true) })
			return
		}
		w := strings.ToLower(p.text)
		if !p.compound && isStop(w) || len(w) < 2 {
			return
		}
		emit(stem(w), false)
	})
}

// bigrams emits the character bigrams of a CJK run, or the run itself when
// it is one character.
func bigrams(run string, emit func(string)) {
	first, n := utf8.DecodeRuneInString(run)
	if n == len(run) {
		emit(run)
		return
	}
	_ = first
	prev := 0
	i := n
	for i < len(run) {
		_, m := utf8.DecodeRuneInString(run[i:])
		emit(run[prev : i+m])
		prev = i
		i += m
	}
}

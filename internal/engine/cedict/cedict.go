package cedict

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/gztext"
)

//go:embed data/cedict-en.txt.gz
var packed []byte

// table is the parsed file: each headword's translations (nil for a word
// kept only for segmentation) and the longest headword in runes.
type table struct {
	words   map[string][]string
	maxRune int
}

var load = gztext.Embedded("cedict", packed, parse)

// Lookup returns the English translations of a simplified Chinese word,
// best first (at most four, each one or two lower-case words), and
// whether CC-CEDICT has the word at all: a name or a place is a word with
// no translation. The result is shared: do not modify it.
func Lookup(word string) (translations []string, ok bool) {
	tr, ok := load().words[word]
	return tr, ok
}

// MaxRunes is the length of the longest headword, in characters: a
// segmenter need not try longer words.
func MaxRunes() int {
	return load().maxRune
}

// parse reads the gzipped table written by internal/gen.
func parse(gz []byte) (*table, error) {
	text, err := gztext.Gunzip(gz, 2300<<10)
	if err != nil {
		return nil, err
	}
	nLines, nTrans := 0, 0
	for _, line := range gztext.Lines(text) {
		nLines++
		if strings.Contains(line, "\t") {
			nTrans += 1 + strings.Count(line, "|")
		}
	}
	t := &table{words: make(map[string][]string, nLines)}
	// One backing array for all translations.
	all := make([]string, 0, nTrans)
	prev := ""
	for n, line := range gztext.Lines(text) {
		word, rest, hasTrans := strings.Cut(line, "\t")
		if word == "" || word <= prev {
			return nil, fmt.Errorf("line %d: %q empty or out of order", n, word)
		}
		prev = word
		var tr []string
		if hasTrans {
			start := len(all)
			for {
				w, more, ok := strings.Cut(rest, "|")
				if w == "" {
					return nil, fmt.Errorf("line %d: empty translation", n)
				}
				all = append(all, w)
				if !ok {
					break
				}
				rest = more
			}
			tr = all[start:len(all):len(all)]
		}
		t.words[word] = tr
		t.maxRune = max(t.maxRune, utf8.RuneCountInString(word))
	}
	return t, nil
}

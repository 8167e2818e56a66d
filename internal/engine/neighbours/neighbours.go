package neighbours

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/gztext"

	"github.com/toolshelf/toolshelf/internal/engine/stem"
)

//go:embed data/glove-nb.txt.gz
var packed []byte

// A Neighbour is one word near a looked-up word in the vector space.
type Neighbour struct {
	// Word is the neighbour: lower-case ASCII letters, at least three,
	// with a Snowball stem that differs from the looked-up word's and
	// from every better neighbour's.
	Word string
	// Cos is the cosine similarity of the two words' vectors, rounded
	// down to hundredths.
	Cos float32
}

// tables maps words and stems to their neighbours.
type tables struct {
	word map[string][]Neighbour
	stem map[string][]Neighbour
}

var load = gztext.Embedded("neighbours", packed, parse)

// Of returns the nearest neighbours of word, a lower-case English word
// (closed, newest), best first. It returns nil for a word outside the
// vocabulary or without a neighbour close enough. The result is shared:
// do not modify it.
func Of(word string) []Neighbour {
	return load().word[word]
}

// OfStem returns the neighbours of the head word of the Snowball stem s
// (package internal/engine/stem): the most frequent word of the source with that
// stem and at least one neighbour. Order and sharing are as for [Of].
func OfStem(s string) []Neighbour {
	return load().stem[s]
}

// parse reads the gzipped neighbour file written by internal/gen: after
// comment lines, one line per word, most frequent first.
func parse(gz []byte) (*tables, error) {
	text, err := gztext.Gunzip(gz, 4<<20)
	if err != nil {
		return nil, err
	}

	nLines, nNb := 0, 0
	for _, line := range gztext.Lines(text) {
		nLines++
		nNb += 1 + strings.Count(line, ",")
	}
	t := &tables{word: make(map[string][]Neighbour, nLines), stem: make(map[string][]Neighbour, nLines)}
	all := make([]Neighbour, 0, nNb)
	for n, line := range gztext.Lines(text) {
		word, list, ok := strings.Cut(line, "\t")
		if !ok || word == "" || list == "" {
			return nil, fmt.Errorf("line %d: no neighbours", n)
		}
		if _, dup := t.word[word]; dup {
			return nil, fmt.Errorf("line %d: %q twice", n, word)
		}
		start := len(all)
		for more := true; more; {
			var item string
			item, list, more = strings.Cut(list, ",")
			w, c, ok := strings.Cut(item, ":")
			cos, err := strconv.Atoi(c)
			if !ok || w == "" || err != nil || cos < 0 || cos > 100 {
				return nil, fmt.Errorf("line %d: bad neighbour %q", n, item)
			}
			all = append(all, Neighbour{Word: w, Cos: float32(cos) / 100})
		}
		nbs := all[start:len(all):len(all)]
		t.word[word] = nbs
		// Lines come most frequent first: the first word of a stem is
		// its head.
		if s := stem.Stem(word); t.stem[s] == nil {
			t.stem[s] = nbs
		}
	}
	return t, nil
}

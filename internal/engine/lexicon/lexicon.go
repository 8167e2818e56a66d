package lexicon

import (
	"cmp"
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/gztext"

	"github.com/toolshelf/toolshelf/internal/engine/stem"
)

//go:embed data/wordnet-syn.txt.gz
var packed []byte

// A Kind says how a related word is related.
type Kind uint8

const (
	// Synonym marks a word that shares a synset with the looked-up word.
	Synonym Kind = 1 + iota
	// Derivation marks a word WordNet links to the looked-up word by a
	// derivational pointer ("+"): notify -> notification.
	Derivation
	// Hypernym marks a word of a synset one level up ("@", "@i"): the
	// looked-up word is a kind of it (apartment -> housing).
	Hypernym
	// Hyponym marks a word of a synset one level down ("~", "~i"): it is
	// a kind of the looked-up word (apartment -> penthouse).
	Hyponym
	// CoHyponym marks a sibling: a word of another hyponym of one of the
	// looked-up word's hypernyms (apartment -> condominium).
	CoHyponym
	// Similar marks an adjective WordNet calls similar ("&") to the
	// looked-up one: a satellite of its head, or the head (latest ->
	// current).
	Similar
	// VerbGroup marks a verb of the same verb group ("$").
	VerbGroup
	// AlsoSee marks a word of an "also see" pointer ("^"): modern -> new.
	AlsoSee
	// Gloss marks a content word of the definition of one of the
	// looked-up word's senses (the gloss text before the first quoted
	// example: WordNet glosses are "definition; definition; \"example\""),
	// lemmatised to a WordNet lemma: remember -> memory, from "recall
	// knowledge from memory; have a recollection".
	Gloss
	// Attribute marks the noun an adjective is a value of ("="): big ->
	// size, old -> age; and for such a noun, its adjectives.
	Attribute
)

// kindLetters are the kinds' letters in the data file, by Kind.
const kindLetters = "?sdhoctgela"

// String returns the kind's name: "synonym", "derivation", "hypernym",
// "hyponym", "co-hyponym", "similar", "verb group", "also see", "gloss"
// or "attribute".
func (k Kind) String() string {
	switch k {
	case Synonym:
		return "synonym"
	case Derivation:
		return "derivation"
	case Hypernym:
		return "hypernym"
	case Hyponym:
		return "hyponym"
	case CoHyponym:
		return "co-hyponym"
	case Similar:
		return "similar"
	case VerbGroup:
		return "verb group"
	case AlsoSee:
		return "also see"
	case Gloss:
		return "gloss"
	case Attribute:
		return "attribute"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// A Relation is one word related to a looked-up word.
type Relation struct {
	// Word is the related word: a lower-case ASCII WordNet lemma of at
	// least three letters, whose Snowball stem differs from the
	// looked-up word's.
	Word string
	// Kind is how Word is related.
	Kind Kind
	// Rank is the frequency rank (1 = most frequent) of the looked-up
	// word's sense through which Word was found, over all parts of
	// speech by WordNet's tag counts; 1 to 3.
	Rank uint8
}

// entry is one key of a table with its relations.
type entry struct {
	key  string
	rels []Relation
}

// tables maps words and stems to their relations: a map lookup measured
// 7x faster than a binary search over the 41k sorted words
// (BenchmarkRelated, BenchmarkSortedBaseline).
type tables struct {
	word map[string][]Relation
	stem map[string][]Relation
}

var load = gztext.Embedded("lexicon", packed, parse)

// Related returns the words related to word, a WordNet lemma in lower
// case (delete, notification), best first: synonyms and derivations by
// Rank, then derivations before synonyms, then alphabetically; then the
// Gloss relations, by Rank, then in gloss order; relations of further
// kinds (a file generated with -further; the embedded one has none)
// follow, kind by kind in the generator's order, by Rank, then the more
// frequent word first. It returns nil for a word
// WordNet does not list or that has no kept relation. The result is
// shared: do not modify it.
func Related(word string) []Relation {
	return load().word[word]
}

// RelatedStem returns the relations of the head lemma of the Snowball
// stem s (package internal/engine/stem): the shortest WordNet lemma with that
// stem and synonyms or derivations (else the shortest with Gloss
// relations), so "deleting" and "deletion", both stemmed to "delet",
// reach the relations of delete. Order and sharing are as for [Related].
func RelatedStem(s string) []Relation {
	return load().stem[s]
}

func index(es []entry) map[string][]Relation {
	m := make(map[string][]Relation, len(es))
	for _, e := range es {
		m[e.key] = e.rels
	}
	return m
}

// parse reads the gzipped relation file written by internal/gen.
func parse(gz []byte) (*tables, error) {
	text, err := gztext.Gunzip(gz, 5<<19)
	if err != nil {
		return nil, err
	}

	// Count first so the relations live in one array the entries slice.
	nLines, nRels := 0, 0
	for _, line := range gztext.Lines(text) {
		nLines++
		nRels += strings.Count(line, "\t") + strings.Count(line, ",")
	}
	byWord := make([]entry, 0, nLines)
	rels := make([]Relation, 0, nRels)
	for n, line := range gztext.Lines(text) {
		lemma, groups, ok := strings.Cut(line, "\t")
		if !ok || lemma == "" {
			return nil, fmt.Errorf("line %d: no relations", n)
		}
		start := len(rels)
		// strings.Cut loops rather than SplitSeq: the iterator's closures
		// escape and cost an allocation per group (measured: 1.2M allocs
		// per load).
		for groups != "" {
			var g string
			g, groups, _ = strings.Cut(groups, "\t")
			head, words, ok := strings.Cut(g, ":")
			if !ok || len(head) != 2 || head[1] < '1' || head[1] > '9' || words == "" {
				return nil, fmt.Errorf("line %d: bad group %q", n, g)
			}
			ki := strings.IndexByte(kindLetters, head[0])
			if ki < int(Synonym) {
				return nil, fmt.Errorf("line %d: bad kind in %q", n, g)
			}
			k := Kind(ki)
			for {
				w, rest, more := strings.Cut(words, ",")
				if w == "" {
					return nil, fmt.Errorf("line %d: empty word in %q", n, g)
				}
				rels = append(rels, Relation{Word: w, Kind: k, Rank: head[1] - '0'})
				if !more {
					break
				}
				words = rest
			}
		}
		if len(byWord) > 0 && byWord[len(byWord)-1].key >= lemma {
			return nil, fmt.Errorf("line %d: %q out of order", n, lemma)
		}
		byWord = append(byWord, entry{lemma, rels[start:len(rels):len(rels)]})
	}
	return &tables{word: index(byWord), stem: index(byStem(byWord))}, nil
}

// byStem maps each Snowball stem to the relations of its head lemma: the
// shortest lemma with that stem, the alphabetically first on a tie (stop
// rather than stops, delete rather than deletion, branch rather than
// branched). Merging all lemmas of a stem was tried and brought in the
// senses of derived words (stops, the card game: boodle; purchasable:
// venal), so the base word speaks for its stem. A lemma with synonyms or
// derivations comes before one with only Gloss relations, whatever their
// lengths, so that a stem keeps WordNet's word-to-word links when a
// shorter lemma has only its definitions (327 stems: warm, whose gloss
// words would hide warmly's cordially and heartily), and one with Gloss
// relations before one with only an Attribute.
func byStem(byWord []entry) []entry {
	type keyed struct {
		stem string
		// tier: 0 with synonyms or derivations, 1 with Gloss relations
		// first, 2 with only further kinds (an Attribute).
		tier int
		i    int
	}
	ks := make([]keyed, len(byWord))
	for i, e := range byWord {
		tier := 0
		switch k := e.rels[0].Kind; {
		case k == Gloss:
			tier = 1
		case k != Synonym && k != Derivation:
			tier = 2
		}
		ks[i] = keyed{stem.Stem(e.key), tier, i}
	}
	// byWord is sorted, so among equal stems and lengths the lower index
	// is the alphabetically first lemma.
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(strings.Compare(a.stem, b.stem), a.tier-b.tier,
			len(byWord[a.i].key)-len(byWord[b.i].key), a.i-b.i)
	})
	out := make([]entry, 0, len(ks))
	for i, k := range ks {
		if i == 0 || k.stem != ks[i-1].stem {
			out = append(out, entry{k.stem, byWord[k.i].rels})
		}
	}
	return out
}

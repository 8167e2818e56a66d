// Package wordnet turns the WordNet 3.0 database files (Debian's
// wordnet-base, /usr/share/wordnet) into the relation file that package
// lexicon embeds. It runs only at generation time (go generate in
// internal/engine/lexicon), never when the library runs; README.md in
// internal/engine/lexicon documents every choice made here.
package wordnet

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/stem"
)

// Options bound what Build keeps.
type Options struct {
	// Senses is how many of a lemma's senses count, over all parts of
	// speech, most frequent first by the tag counts of cntlist.rev.
	Senses int
	// MinLen is the shortest lemma or related word kept.
	MinLen int
	// MaxPerWord caps the synonyms and derivations kept per lemma, best
	// ranked first.
	MaxPerWord int
	// Further lists the further relation kinds to follow, by their
	// letters (see the kind constants), closest first: a word reached
	// through two kinds keeps the first listed. Empty for none.
	Further string
	// MaxPerKind caps the relations of each further kind kept per lemma.
	MaxPerKind int
	// GlossSenses is how many of a lemma's best ranked senses give gloss
	// relations (content words of their definitions); 0 for none.
	GlossSenses int
	// MaxGloss caps the gloss relations kept per lemma, best ranked
	// sense first, in gloss order.
	MaxGloss int
	// GlossMinCount is the least tag count (cntlist.rev) of a sense
	// whose gloss counts.
	GlossMinCount int
}

// DefaultOptions are the options the embedded file is built with.
var DefaultOptions = Options{Senses: 3, MinLen: 3, MaxPerWord: 16, Further: "a", MaxPerKind: 4, GlossSenses: 2, MaxGloss: 6, GlossMinCount: 1}

// ErrFormat reports a database line Build cannot read.
var ErrFormat = errors.New("wordnet: malformed line")

// ErrOptions reports Options that Build cannot honour: an unknown or
// repeated letter in Further.
var ErrOptions = errors.New("wordnet: bad options")

// Files are the database files Build reads, in the order their digests
// appear in the output header.
var Files = []string{
	"cntlist.rev", "index.noun", "index.verb", "index.adj", "index.adv",
	"data.noun", "data.verb", "data.adj", "data.adv",
	"noun.exc", "verb.exc", "adj.exc", "adv.exc",
}

// posFiles maps a part-of-speech letter of index and pointer fields to
// the suffix of its files; adjective satellites (s) live in data.adj.
var posFiles = map[byte]string{'n': "noun", 'v': "verb", 'a': "adj", 's': "adj", 'r': "adv"}

type pointer struct {
	symbol   string
	offset   string
	pos      byte
	src, tgt int // word numbers, 1-based; 0 for a relation between synsets
}

type synset struct {
	words []string // as in the data file, adjective markers removed
	ptrs  []pointer
	gloss string // the text after " | ": definitions and quoted examples
}

// Relation kinds as written to the output.
const (
	kindSynonym    = 's'
	kindDerivation = 'd'
	// Further kinds, each from WordNet pointers of a kept sense's synset.
	kindHypernym  = 'h' // "@", "@i": the synsets one level up
	kindHyponym   = 'o' // "~", "~i": the synsets one level down
	kindCoHyponym = 'c' // the other hyponyms of a hypernym: siblings
	kindSimilar   = 't' // "&": an adjective's similar satellites or head
	kindVerbGroup = 'g' // "$": verbs of the same group
	kindAlsoSee   = 'e' // "^": "also see"
	kindAttribute = 'a' // "=": an adjective's attribute noun, a noun's adjectives
)

// furtherSymbols are the pointer symbols each directly linked further
// kind follows; co-hyponyms go through kindHypernym's and back down
// through kindHyponym's.
var furtherSymbols = map[byte][]string{
	kindHypernym:  {"@", "@i"},
	kindHyponym:   {"~", "~i"},
	kindSimilar:   {"&"},
	kindVerbGroup: {"$"},
	kindAlsoSee:   {"^"},
	kindAttribute: {"="},
}

// A sense is one entry of a lemma in an index file.
type sense struct {
	suffix string // file suffix: noun, verb, adj, adv
	pos    int    // 0..3 in that order
	num    int    // sense number within the part of speech, 1-based
	offset string
	count  int // tag count from cntlist.rev
}

// posLetters are the index order's part-of-speech letters as countKey
// uses them.
var posLetters = [...]byte{'n', 'v', 'a', 'r'}

func countKey(lemma string, pos byte, num int) string {
	return lemma + " " + string(pos) + " " + strconv.Itoa(num)
}

// readCounts parses cntlist.rev: sense_key sense_number tag_cnt, where
// sense_key is lemma%ss_type:... and ss_type is 1 noun, 2 verb, 3
// adjective, 4 adverb, 5 adjective satellite.
func readCounts(path string) (map[string]int, error) {
	name := filepath.Base(path)
	counts := map[string]int{}
	err := lines(path, func(line string, n int) error {
		f := strings.Fields(line)
		if len(f) != 3 {
			return fmt.Errorf("%w: %s:%d: want 3 fields", ErrFormat, name, n)
		}
		lemma, rest, ok := strings.Cut(f[0], "%")
		num, err1 := strconv.Atoi(f[1])
		cnt, err2 := strconv.Atoi(f[2])
		if !ok || rest == "" || err1 != nil || err2 != nil {
			return fmt.Errorf("%w: %s:%d", ErrFormat, name, n)
		}
		pos := "?nvara"[min(int(rest[0]-'0'), 6)%6]
		if pos == '?' {
			return fmt.Errorf("%w: %s:%d: sense type %q", ErrFormat, name, n, rest[0])
		}
		counts[countKey(lemma, pos, num)] = cnt
		return nil
	})
	return counts, err
}

type relation struct {
	word string
	kind byte
	rank int
	// count is the tag count of word's sense in the synset it was found
	// in (further kinds only): among relations of one kind and rank, the
	// more frequent words are kept first.
	count int
}

// Build reads the WordNet files in dir and returns the relation file:
// comment lines starting with "#" (the options and the SHA-256 of each
// input file), then one line per lemma, sorted, of the form
//
//	lemma<TAB>group<TAB>group...
//
// where a group is kind, rank, ':' and comma-separated words, e.g.
// "s1:erase,cancel"; kind is s (synonym: shares a synset) or d
// (derivation: a WordNet "+" pointer), rank the best sense number through
// which the relation was found. Groups are ordered by rank, then kind
// (d before s), words alphabetically. The further kinds of opt.Further
// (h, o, c, t, g, e: see the kind constants) follow, in that option's
// order, each by rank and then by the tag count of the word's sense.
func Build(dir string, opt Options) ([]byte, error) {
	for i := 0; i < len(opt.Further); i++ {
		k := opt.Further[i]
		if (furtherSymbols[k] == nil && k != kindCoHyponym) || strings.IndexByte(opt.Further[:i], k) >= 0 {
			return nil, fmt.Errorf("%w: further kind %q (want each of h, o, c, t, g, e, a at most once)", ErrOptions, k)
		}
	}
	var out bytes.Buffer
	if err := writeHeader(&out, dir, opt); err != nil {
		return nil, err
	}
	b := &builder{opt: opt, data: map[string]*synset{}, rels: map[string]map[string]relation{},
		further: map[string]map[string]relation{}, senses: map[string][]sense{},
		gloss: map[string][]relation{}, pos: map[string]uint8{}}
	if err := b.load(dir); err != nil {
		return nil, err
	}
	for lemma, list := range b.senses {
		if err := b.relate(lemma, list); err != nil {
			return nil, err
		}
	}
	b.write(&out)
	return out.Bytes(), nil
}

// writeHeader writes the comment lines: the generator, the options and the
// SHA-256 of each input file.
func writeHeader(out *bytes.Buffer, dir string, opt Options) error {
	fmt.Fprintf(out, "# Generated by internal/engine/lexicon/internal/gen from WordNet 3.0 (Princeton University; licence in internal/engine/lexicon/README.md). DO NOT EDIT.\n")
	fmt.Fprintf(out, "# options: senses=%d minlen=%d maxperword=%d\n", opt.Senses, opt.MinLen, opt.MaxPerWord)
	if opt.Further != "" {
		fmt.Fprintf(out, "# further: kinds=%s maxperkind=%d\n", opt.Further, opt.MaxPerKind)
	}
	if opt.GlossSenses > 0 {
		fmt.Fprintf(out, "# gloss: senses=%d mincount=%d maxperword=%d\n", opt.GlossSenses, opt.GlossMinCount, opt.MaxGloss)
	}
	for _, name := range Files {
		sum, err := digest(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "# sha256 %s %s\n", name, sum)
	}
	return nil
}

// builder holds what Build reads and the relations it finds.
type builder struct {
	opt  Options
	data map[string]*synset // key: file suffix + offset
	// rels[lemma][word]: synonyms and derivations, the best rank kept.
	rels map[string]map[string]relation
	// further[lemma][word]: the closest further relation (by the order
	// of opt.Further), then the best rank, then the most frequent sense.
	further map[string]map[string]relation
	senses  map[string][]sense
	// gloss[lemma]: the gloss words of its senses, by rank, in gloss
	// order, repeats included.
	gloss map[string][]relation
	// exc[pos][form]: the base forms of WordNet's exception lists.
	exc [4]map[string][]string
	// pos[lemma]: bit i set if lemma is in the index of posLetters[i].
	pos map[string]uint8
}

func (b *builder) valid(w string) bool { return validWord(w, b.opt.MinLen) }

// load reads the data files, the tag counts and the index files.
func (b *builder) load(dir string) error {
	for _, suffix := range []string{"noun", "verb", "adj", "adv"} {
		if err := readData(filepath.Join(dir, "data."+suffix), suffix, b.data); err != nil {
			return err
		}
	}
	if err := b.readExc(dir); err != nil {
		return err
	}
	counts, err := readCounts(filepath.Join(dir, "cntlist.rev"))
	if err != nil {
		return err
	}
	for pi, suffix := range []string{"noun", "verb", "adj", "adv"} {
		err := readIndex(filepath.Join(dir, "index."+suffix), func(lemma string, offsets []string) error {
			if !b.valid(lemma) {
				return nil
			}
			b.pos[lemma] |= 1 << pi
			for i, off := range offsets {
				num := i + 1
				b.senses[lemma] = append(b.senses[lemma], sense{
					suffix: suffix, pos: pi, num: num, offset: off,
					count: counts[countKey(lemma, posLetters[pi], num)],
				})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) add(lemma string, r relation) {
	m := b.rels[lemma]
	if m == nil {
		m = map[string]relation{}
		b.rels[lemma] = m
	}
	old, ok := m[r.word]
	if !ok || r.rank < old.rank || (r.rank == old.rank && r.kind < old.kind) {
		m[r.word] = r
	}
}

func (b *builder) addFurther(lemma string, r relation) {
	m := b.further[lemma]
	if m == nil {
		m = map[string]relation{}
		b.further[lemma] = m
	}
	old, ok := m[r.word]
	ko, kr := strings.IndexByte(b.opt.Further, old.kind), strings.IndexByte(b.opt.Further, r.kind)
	if !ok || kr < ko || (kr == ko && (r.rank < old.rank || (r.rank == old.rank && r.count > old.count))) {
		m[r.word] = r
	}
}

// count is the tag count of word's sense in synset suffix+offset.
func (b *builder) count(word, suffix, offset string) int {
	for _, sn := range b.senses[word] {
		if sn.suffix == suffix && sn.offset == offset {
			return sn.count
		}
	}
	return 0
}

// synsetWords adds, as relations of kind k and rank of lemma, the valid
// words of the synset at key (file suffix + offset), or only its word
// number tgt when tgt > 0.
func (b *builder) synsetWords(lemma string, k byte, rank int, key string, tgt int) error {
	t := b.data[key]
	if t == nil || tgt > len(t.words) {
		return fmt.Errorf("%w: %s: bad %c pointer to %s", ErrFormat, lemma, k, key)
	}
	for i, w := range t.words {
		if (tgt == 0 || i == tgt-1) && w != lemma && b.valid(w) {
			suffix, offset := key[:len(key)-8], key[len(key)-8:]
			b.addFurther(lemma, relation{w, k, rank, b.count(w, suffix, offset)})
		}
	}
	return nil
}

// relate follows the relations of lemma's best opt.Senses senses.
func (b *builder) relate(lemma string, list []sense) error {
	// One ranking over all parts of speech: most tagged first, then
	// the lower sense number (WordNet's own order within a part of
	// speech), then noun, verb, adjective, adverb.
	slices.SortFunc(list, func(a, b sense) int {
		if a.count != b.count {
			return b.count - a.count
		}
		if a.num != b.num {
			return a.num - b.num
		}
		return a.pos - b.pos
	})
	rank := 0
	for _, sn := range list {
		if rank >= b.opt.Senses {
			break
		}
		ss := b.data[sn.suffix+sn.offset]
		if ss == nil {
			return fmt.Errorf("%w: index.%s %s: no synset %s", ErrFormat, sn.suffix, lemma, sn.offset)
		}
		num := slices.Index(ss.words, lemma) + 1
		if num == 0 {
			// The lemma appears capitalised in this synset: a
			// proper-noun sense (java -> Java), which says nothing
			// about the common word and does not use up a rank.
			continue
		}
		rank++
		if err := b.relateSense(lemma, sn, ss, num, rank); err != nil {
			return err
		}
	}
	return nil
}

// relateSense adds the synonyms, derivations and further relations of
// lemma, word number num of synset ss (sense sn), at rank.
func (b *builder) relateSense(lemma string, sn sense, ss *synset, num, rank int) error {
	for _, w := range ss.words {
		if w != lemma && b.valid(w) {
			b.add(lemma, relation{w, kindSynonym, rank, 0})
		}
	}
	for _, p := range ss.ptrs {
		if p.symbol != "+" || p.src != num {
			continue
		}
		t := b.data[posFiles[p.pos]+p.offset]
		if t == nil || p.tgt < 1 || p.tgt > len(t.words) {
			return fmt.Errorf("%w: %s %s: bad + pointer to %s %c", ErrFormat, sn.suffix, lemma, p.offset, p.pos)
		}
		if w := t.words[p.tgt-1]; w != lemma && b.valid(w) {
			b.add(lemma, relation{w, kindDerivation, rank, 0})
		}
	}
	b.addGloss(lemma, sn, ss, rank)
	for _, k := range []byte(b.opt.Further) {
		for _, p := range ss.ptrs {
			if k == kindCoHyponym && slices.Contains(furtherSymbols[kindHypernym], p.symbol) {
				if err := b.siblings(lemma, sn, p, k, rank); err != nil {
					return err
				}
				continue
			}
			if !slices.Contains(furtherSymbols[k], p.symbol) || (p.src != 0 && p.src != num) {
				continue
			}
			if err := b.synsetWords(lemma, k, rank, posFiles[p.pos]+p.offset, p.tgt); err != nil {
				return err
			}
		}
	}
	return nil
}

// siblings adds the other hyponyms of the hypernym p points to.
func (b *builder) siblings(lemma string, sn sense, p pointer, k byte, rank int) error {
	up := b.data[posFiles[p.pos]+p.offset]
	if up == nil {
		return fmt.Errorf("%w: %s: bad @ pointer to %s", ErrFormat, lemma, p.offset)
	}
	for _, q := range up.ptrs {
		if slices.Contains(furtherSymbols[kindHyponym], q.symbol) && !(q.offset == sn.offset && posFiles[q.pos] == sn.suffix) {
			if err := b.synsetWords(lemma, k, rank, posFiles[q.pos]+q.offset, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// write writes one line per lemma, sorted.
func (b *builder) write(out *bytes.Buffer) {
	lemmas := make([]string, 0, len(b.rels)+len(b.further))
	for l := range b.rels {
		lemmas = append(lemmas, l)
	}
	for l := range b.further {
		if b.rels[l] == nil {
			lemmas = append(lemmas, l)
		}
	}
	for l := range b.gloss {
		if b.rels[l] == nil && b.further[l] == nil {
			lemmas = append(lemmas, l)
		}
	}
	slices.Sort(lemmas)
	for _, lemma := range lemmas {
		list := b.kept(lemma)
		if len(list) == 0 {
			continue
		}
		out.WriteString(lemma)
		for i, r := range list {
			if i == 0 || r.kind != list[i-1].kind || r.rank != list[i-1].rank {
				fmt.Fprintf(out, "\t%c%d:", r.kind, r.rank)
			} else {
				out.WriteByte(',')
			}
			out.WriteString(r.word)
		}
		out.WriteByte('\n')
	}
}

// kept is what lemma's line lists: synonyms and derivations, capped, then
// each further kind, capped on its own.
func (b *builder) kept(lemma string) []relation {
	ls := stem.Stem(lemma)
	var list []relation
	for _, r := range b.rels[lemma] {
		// A word sharing the lemma's stem is already the same index
		// term for a ranker that stems (delete/deletion -> delet).
		if stem.Stem(r.word) != ls {
			list = append(list, r)
		}
	}
	slices.SortFunc(list, func(a, b relation) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if a.kind != b.kind {
			return int(a.kind) - int(b.kind)
		}
		return strings.Compare(a.word, b.word)
	})
	if len(list) > b.opt.MaxPerWord {
		list = list[:b.opt.MaxPerWord]
	}
	list = append(list, b.keptGloss(lemma, ls, list)...)
	// Further kinds follow, each capped on its own, in opt.Further's
	// order; a word already a synonym or derivation (kept or capped
	// off) or of the lemma's stem is not repeated.
	var more []relation
	for _, r := range b.further[lemma] {
		if _, dup := b.rels[lemma][r.word]; !dup && stem.Stem(r.word) != ls {
			more = append(more, r)
		}
	}
	slices.SortFunc(more, func(a, c relation) int {
		return cmp.Or(strings.IndexByte(b.opt.Further, a.kind)-strings.IndexByte(b.opt.Further, c.kind),
			a.rank-c.rank, c.count-a.count, strings.Compare(a.word, c.word))
	})
	for i, n := 0, 0; i < len(more); i++ {
		if i > 0 && more[i].kind != more[i-1].kind {
			n = 0
		}
		if n < b.opt.MaxPerKind {
			list = append(list, more[i])
		}
		n++
	}
	return list
}

// validWord reports whether w is a single lower-case ASCII word of at
// least minLen letters: no collocations (take_away), hyphens, digits,
// apostrophes or capitals.
func validWord(w string, minLen int) bool {
	if len(w) < minLen {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func digest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("wordnet: reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// lines calls fn with each line of path that is not part of the licence
// header (which WordNet indents with two spaces).
func lines(path string, fn func(line string, n int) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "  ") || line == "" {
			continue
		}
		if err := fn(line, n); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("wordnet: reading %s: %w", path, err)
	}
	return nil
}

// readData parses a data.* file: offset lex_filenum ss_type w_cnt(hex)
// {word lex_id} p_cnt {symbol offset pos source/target(hex)} ... | gloss.
func readData(path, suffix string, into map[string]*synset) error {
	name := filepath.Base(path)
	return lines(path, func(line string, n int) error {
		bad := func(what string) error { return fmt.Errorf("%w: %s:%d: %s", ErrFormat, name, n, what) }
		head, gloss, _ := strings.Cut(line, " | ")
		f := strings.Fields(head)
		if len(f) < 4 {
			return bad("too few fields")
		}
		wc, err := strconv.ParseUint(f[3], 16, 16)
		if err != nil {
			return bad("word count")
		}
		i := 4
		ss := &synset{gloss: strings.TrimSpace(gloss)}
		for range wc {
			if i+1 >= len(f) {
				return bad("words")
			}
			w := f[i]
			if j := strings.IndexByte(w, '('); j > 0 && strings.HasSuffix(w, ")") {
				w = w[:j] // adjective position marker: (a), (p), (ip)
			}
			ss.words = append(ss.words, w)
			i += 2
		}
		if i >= len(f) {
			return bad("pointer count")
		}
		pc, err := strconv.Atoi(f[i])
		if err != nil {
			return bad("pointer count")
		}
		i++
		for range pc {
			if i+3 >= len(f) || len(f[i+2]) != 1 || len(f[i+3]) != 4 {
				return bad("pointer")
			}
			src, err1 := strconv.ParseUint(f[i+3][:2], 16, 8)
			tgt, err2 := strconv.ParseUint(f[i+3][2:], 16, 8)
			if err1 != nil || err2 != nil {
				return bad("pointer source/target")
			}
			ss.ptrs = append(ss.ptrs, pointer{symbol: f[i], offset: f[i+1], pos: f[i+2][0], src: int(src), tgt: int(tgt)})
			i += 4
		}
		into[suffix+f[0]] = ss
		return nil
	})
}

// readIndex parses an index.* file: lemma pos synset_cnt p_cnt
// {symbol} sense_cnt tagsense_cnt {synset_offset}, offsets ordered by
// sense frequency.
func readIndex(path string, fn func(lemma string, offsets []string) error) error {
	name := filepath.Base(path)
	return lines(path, func(line string, n int) error {
		f := strings.Fields(line)
		if len(f) < 4 {
			return fmt.Errorf("%w: %s:%d: too few fields", ErrFormat, name, n)
		}
		sc, err1 := strconv.Atoi(f[2])
		pc, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || 4+pc+2+sc != len(f) {
			return fmt.Errorf("%w: %s:%d: counts do not match the fields", ErrFormat, name, n)
		}
		return fn(f[0], f[4+pc+2:])
	})
}

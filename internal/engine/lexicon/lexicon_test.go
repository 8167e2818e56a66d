package lexicon

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/lexicon/internal/wordnet"
	"github.com/toolshelf/toolshelf/internal/engine/stem"
)

const wordnetDir = "/usr/share/wordnet"

func embeddedText(t *testing.T) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return b
}

// TestRegenerate rebuilds the relation file from the installed WordNet and
// requires the embedded file, decompressed, to match it byte for byte (the
// gzip bytes themselves may differ between Go releases). It needs Debian's
// wordnet-base.
func TestRegenerate(t *testing.T) {
	if _, err := os.Stat(filepath.Join(wordnetDir, "data.noun")); err != nil {
		t.Skipf("WordNet not installed at %s (apt-get install wordnet-base): skipping the regeneration check", wordnetDir)
	}
	if testing.Short() || raceEnabled {
		t.Skip("regeneration reads 25 MB of WordNet (about 3 s, 13 s with -race): skipped under -short and -race")
	}
	first, err := wordnet.Build(wordnetDir, wordnet.DefaultOptions)
	require.NoError(t, err)
	embedded := embeddedText(t)
	header := func(b []byte) string {
		var h []string
		for line := range strings.Lines(string(b)) {
			if strings.HasPrefix(line, "# sha256 ") {
				h = append(h, line)
			}
		}
		return strings.Join(h, "")
	}
	if header(first) != header(embedded) {
		t.Skipf("the installed WordNet files differ from those the embedded file was built from:\n%s\nvs\n%s", header(first), header(embedded))
	}
	// The embedded file came from an earlier run of the generator, in
	// another process with other map seeds, so equality also shows that
	// the build is deterministic.
	assert.True(t, bytes.Equal(first, embedded), "embedded data/wordnet-syn.txt.gz is stale: run go generate ./internal/engine/lexicon")
}

func has(rels []Relation, word string, kind Kind) bool {
	return slices.ContainsFunc(rels, func(r Relation) bool { return r.Word == word && r.Kind == kind })
}

// TestWellKnownPairs checks relations WordNet 3.0 states, with the synset
// or pointer that states each: delete and erase share synset 00999833 (v,
// "wipe out digitally or magnetically recorded information"); notify has
// a "+" pointer to notification; remove and withdraw share 00173338 (v);
// query and inquiry share a noun synset; merge points to merger.
func TestWellKnownPairs(t *testing.T) {
	cases := []struct {
		word, related string
		kind          Kind
	}{
		{"delete", "erase", Synonym},
		{"erase", "delete", Synonym},
		{"notify", "notification", Derivation},
		{"notification", "notify", Derivation},
		{"remove", "withdraw", Synonym},
		{"query", "inquiry", Synonym},
		{"merge", "merger", Derivation},
		{"search", "seek", Synonym},
	}
	for _, c := range cases {
		t.Run(c.word+"/"+c.related, func(t *testing.T) {
			rels := Related(c.word)
			assert.True(t, has(rels, c.related, c.kind), "Related(%q) = %v", c.word, rels)
			assert.True(t, has(RelatedStem(stem.Stem(c.word)), c.related, c.kind))
		})
	}
	// WordNet links delete to deletion ("+" to 06428216), but both stem to
	// "delet", so the pair says nothing a stemming ranker does not know.
	require.Equal(t, stem.Stem("delete"), stem.Stem("deletion"))
	assert.False(t, slices.ContainsFunc(Related("delete"), func(r Relation) bool { return r.Word == "deletion" }))

	assert.Nil(t, Related("xyzzy"))
	assert.Nil(t, Related(""))
	assert.Nil(t, RelatedStem("xyzzy"))
}

// TestGlossPairs checks gloss relations against WordNet 3.0's glosses
// (wn WORD -over): remember sense 1 (tag count 106) "recall knowledge
// from memory; have a recollection", sense 2 (53) "keep in mind for
// attention or consideration"; big (adjective, 107) "above average in
// size or number or quantity or magnitude or extent"; notify (10)
// "inform (somebody) of something"; erase (5) "remove from memory or
// existence". memorize (6) is "commit to memory; learn by heart", but
// memory is already its derivation, so it is not repeated as a gloss
// word, and recall, a synonym of remember, is not one either.
func TestGlossPairs(t *testing.T) {
	for _, c := range []struct {
		word, related string
		rank          uint8
	}{
		{"remember", "knowledge", 1},
		{"remember", "memory", 1},
		{"remember", "attention", 2},
		{"big", "size", 1},
		{"big", "quantity", 1},
		{"notify", "inform", 1},
		{"erase", "memory", 1},
		{"erase", "existence", 1},
		{"memorize", "commit", 1},
	} {
		rels := Related(c.word)
		assert.Contains(t, rels, Relation{Word: c.related, Kind: Gloss, Rank: c.rank}, "Related(%q) = %v", c.word, rels)
		assert.Equal(t, rels, RelatedStem(stem.Stem(c.word)), c.word)
	}
	assert.True(t, has(Related("memorize"), "memory", Derivation))
	assert.False(t, has(Related("memorize"), "memory", Gloss))
	assert.True(t, has(Related("remember"), "recall", Synonym))
	assert.False(t, has(Related("remember"), "recall", Gloss))
	// "(somebody)" is parenthesised and "something" a stop word.
	assert.False(t, has(Related("notify"), "somebody", Gloss))
}

// TestRelatedStemHead checks that a stem speaks through its shortest
// lemma: "delet" through delete, not deletion (whose synset 06428216 adds
// excision), and "stop" through stop, not stops (a card game in WordNet).
func TestRelatedStemHead(t *testing.T) {
	require.True(t, has(Related("deletion"), "excision", Synonym), "%v", Related("deletion"))
	assert.Equal(t, Related("delete"), RelatedStem("delet"))
	assert.False(t, has(RelatedStem("delet"), "excision", Synonym))

	require.Equal(t, "stop", stem.Stem("stops"))
	require.NotEmpty(t, Related("stops"))
	require.NotEqual(t, Related("stop"), Related("stops"))
	assert.Equal(t, Related("stop"), RelatedStem("stop"))

	// warm has only gloss words (its synonyms share its stem), so warmly,
	// which has synonyms, still heads the stem "warm".
	require.Equal(t, "warm", stem.Stem("warmly"))
	require.NotEmpty(t, Related("warm"))
	require.Equal(t, Gloss, Related("warm")[0].Kind, "%v", Related("warm"))
	assert.Equal(t, Related("warmly"), RelatedStem("warm"))
}

// TestInvariants checks every entry of both tables against the rules the
// generator promises: valid words, ranks 1..3 (gloss words 1..2), synonyms
// and derivations best first, then at most 6 gloss words by rank, no
// relation sharing the key's stem and no gloss word sharing a synonym's,
// a derivation's or another gloss word's stem.
func TestInvariants(t *testing.T) {
	tb := load()
	opt := wordnet.DefaultOptions
	require.Greater(t, len(tb.word), 30000)
	require.Greater(t, len(tb.stem), 25000)
	for key, rels := range tb.word {
		require.NotEmpty(t, rels, key)
		// Attributes, the one further kind the embedded file has, end
		// the line.
		a := slices.IndexFunc(rels, func(r Relation) bool { return r.Kind == Attribute })
		if a < 0 {
			a = len(rels)
		}
		attrs := rels[a:]
		if len(attrs) > opt.MaxPerKind || slices.ContainsFunc(attrs, func(r Relation) bool { return r.Kind != Attribute || int(r.Rank) > opt.Senses }) {
			t.Fatalf("%s: attributes out of place or too many: %v", key, rels)
		}
		rels = rels[:a]
		if len(rels) == 0 {
			continue
		}
		n := slices.IndexFunc(rels, func(r Relation) bool { return r.Kind == Gloss })
		if n < 0 {
			n = len(rels)
		}
		syn, gloss := rels[:n], rels[n:]
		require.True(t, slices.IsSortedFunc(syn, compare), "%s: %v", key, rels)
		if !slices.IsSortedFunc(gloss, func(a, b Relation) int { return cmp.Compare(a.Rank, b.Rank) }) || len(gloss) > opt.MaxGloss {
			t.Fatalf("%s: gloss words out of order or too many: %v", key, rels)
		}
		keyStem := stem.Stem(key)
		stems := map[string]bool{keyStem: true}
		for i, r := range rels {
			// Plain checks: testify per relation costs seconds here.
			maxRank, kindOK := opt.Senses, r.Kind == Synonym || r.Kind == Derivation
			if i >= n {
				maxRank, kindOK = opt.GlossSenses, r.Kind == Gloss
			}
			if !kindOK || r.Rank < 1 || int(r.Rank) > maxRank ||
				len(r.Word) < 3 || strings.IndexFunc(r.Word, func(c rune) bool { return c < 'a' || c > 'z' }) >= 0 {
				t.Fatalf("%s: bad relation %+v", key, r)
			}
			s := stem.Stem(r.Word)
			if keyStem == s {
				t.Fatalf("%s: %s shares its stem %q", key, r.Word, keyStem)
			}
			if r.Kind == Gloss && stems[s] {
				t.Fatalf("%s: gloss word %s shares the stem %q of an earlier relation: %v", key, r.Word, s, rels)
			}
			stems[s] = true
		}
	}
	// Each stem speaks through one of its lemmas, so the word checks above
	// cover its relations; here only that the lemma exists and is the
	// shortest, lemmas with synonyms or derivations first.
	heads := map[string]string{}
	tier := func(key string) int {
		switch tb.word[key][0].Kind {
		case Synonym, Derivation:
			return 0
		case Gloss:
			return 1
		}
		return 2
	}
	for key := range tb.word {
		s := stem.Stem(key)
		h, ok := heads[s]
		better := !ok || tier(key) < tier(h) ||
			tier(h) == tier(key) && (len(key) < len(h) || len(key) == len(h) && key < h)
		if better {
			heads[s] = key
		}
	}
	require.Len(t, tb.stem, len(heads))
	for s, rels := range tb.stem {
		h, ok := heads[s]
		require.True(t, ok, s)
		if &rels[0] != &tb.word[h][0] {
			t.Fatalf("stem %q: relations are not those of its head lemma %q", s, h)
		}
	}
}

// TestLookupAllocs checks that lookups return shared storage.
func TestLookupAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not the code's under the race detector")
	}
	load()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Related("delete") }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = RelatedStem("delet") }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Related("xyzzy") }))
}

// TestConcurrentFirstUse races the first load from many goroutines; run
// with -race.
func TestConcurrentFirstUse(t *testing.T) {
	var wg sync.WaitGroup
	got := make([][]Relation, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = Related("notify")
		}()
	}
	wg.Wait()
	for _, g := range got {
		assert.Equal(t, got[0], g)
	}
}

func TestParseErrors(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write([]byte(s))
		require.NoError(t, zw.Close())
		return b.Bytes()
	}
	for name, text := range map[string]string{
		"no tab":       "delete\n",
		"bad kind":     "delete\tx1:erase\n",
		"kind past l":  "delete\tm1:erase\n",
		"kind 0":       "delete\t?1:erase\n",
		"bad rank":     "delete\ts0:erase\n",
		"empty word":   "delete\ts1:erase,\n",
		"out of order": "erase\ts1:delete\ndelete\ts1:erase\n",
	} {
		_, err := parse(gz(text))
		assert.Error(t, err, name)
	}
	_, err := parse([]byte("not gzip"))
	assert.Error(t, err)
	tb, err := parse(gz("# comment\ndelete\td1:deletor\ts1:cancel,erase\n"))
	require.NoError(t, err)
	want := []Relation{{"deletor", Derivation, 1}, {"cancel", Synonym, 1}, {"erase", Synonym, 1}}
	assert.Equal(t, map[string][]Relation{"delete": want}, tb.word)
	assert.Equal(t, map[string][]Relation{"delet": want}, tb.stem)

	// The further kinds a generator run with -further writes.
	tb, err = parse(gz("apartment\ts1:flat\th1:housing\to1:penthouse\tc1:condominium\nlatest\tt1:current\nshut\tg1:close\te1:bolt\n"))
	require.NoError(t, err)
	assert.Equal(t, []Relation{{"flat", Synonym, 1}, {"housing", Hypernym, 1}, {"penthouse", Hyponym, 1}, {"condominium", CoHyponym, 1}}, tb.word["apartment"])
	assert.Equal(t, []Relation{{"close", VerbGroup, 1}, {"bolt", AlsoSee, 1}}, tb.word["shut"])
	assert.Equal(t, []Relation{{"current", Similar, 1}}, tb.word["latest"])

	// Gloss words, which the embedded file has, follow the synonyms and
	// derivations.
	tb, err = parse(gz("remember\td1:remembrance\ts1:recall\tl1:knowledge,memory\tl2:mind\n"))
	require.NoError(t, err)
	assert.Equal(t, []Relation{{"remembrance", Derivation, 1}, {"recall", Synonym, 1}, {"knowledge", Gloss, 1}, {"memory", Gloss, 1}, {"mind", Gloss, 2}}, tb.word["remember"])

	var names []string
	for k := Synonym; k <= Attribute; k++ {
		names = append(names, k.String())
	}
	assert.Equal(t, []string{"synonym", "derivation", "hypernym", "hyponym", "co-hyponym", "similar", "verb group", "also see", "gloss", "attribute"}, names)
	assert.Equal(t, "Kind(11)", Kind(11).String())

	// Attributes, which the embedded file has too, end the line.
	tb, err = parse(gz("big\ts1:large\tl1:size\ta1:size\n"))
	require.NoError(t, err)
	assert.Equal(t, []Relation{{"large", Synonym, 1}, {"size", Gloss, 1}, {"size", Attribute, 1}}, tb.word["big"])
}

// compare orders relations best first, as the generator writes them: by
// rank, derivations before synonyms, then by word.
func compare(a, b Relation) int {
	return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(b.Kind, a.Kind), strings.Compare(a.Word, b.Word))
}

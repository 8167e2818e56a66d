package wordnet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A miniature WordNet in the real file formats. The licence header lines
// (two leading spaces) must be skipped.
var mini = map[string]string{
	"cntlist.rev": `run%2:38:00:: 1 10
run%2:41:00:: 2 5
run%1:04:00:: 1 1
java%1:15:00:: 1 5
java%1:13:00:: 2 1
`,
	"index.noun": `  1 This software and database is being provided to you
java n 2 0 2 2 00000300 00000400  
notification n 1 1 + 1 0 00000200  
run n 2 0 2 1 00000100 00000500  
`,
	"index.verb": `delete v 4 1 + 4 0 00000100 00000200 00000300 00000400  
notify v 1 1 + 1 0 00000500  
run v 3 0 3 2 00000600 00000700 00000800  
`,
	"index.adj": ``,
	"index.adv": ``,
	"data.noun": `  1 This software and database is being provided to you
00000100 04 n 02 run 0 tally 0 000 | a score in baseball  
00000200 10 n 01 notification 0 001 + 00000500 v 0101 | informing by words  
00000300 15 n 01 Java 0 000 | an island  
00000400 13 n 02 java 0 coffee 0 000 | a beverage  
00000500 04 n 03 run 0 trial 0 test 0 000 | a trial  
`,
	"data.verb": `00000100 35 v 02 delete 0 cancel 0 001 + 00000200 v 0102 | remove  
00000200 32 v 03 erase 0 delete 0 deleter 0 000 | wipe out  
00000300 30 v 03 edit 0 blue-pencil 0 delete 0 000 | cut  
00000400 30 v 02 delete 0 strike 0 000 | a fourth sense  
00000500 32 v 03 notify 0 advise 0 take_away 0 001 + 00000200 n 0101 | inform  
00000600 38 v 02 run 0 sprint 0 000 | move fast  
00000700 41 v 02 run 0 operate 0 000 | direct  
00000800 38 v 02 run 0 escape 0 000 | flee  
`,
	"data.adj": ``,
	"data.adv": ``,
	"noun.exc": "children child\n",
	"verb.exc": "ran run\n",
	"adj.exc":  ``,
	"adv.exc":  ``,
}

func writeMini(t *testing.T, edit map[string]string) string {
	dir := t.TempDir()
	for name, text := range mini {
		if e, ok := edit[name]; ok {
			text = e
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

func body(b []byte) string {
	var out []string
	for line := range strings.Lines(string(b)) {
		if !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

// TestBuildRules checks each documented rule on the miniature WordNet:
//   - delete: senses 1-3 only (strike is sense 4); erase comes from sense
//     2; the + pointer from delete (word 1 of 00000100 v) reaches word 2 of
//     00000200 v, which is delete itself and so is skipped; deleter shares
//     delete's stem and is dropped; blue-pencil is not a single word.
//   - run: ranked by tag count over parts of speech (verb 10, verb 5, noun
//     1), so escape (verb sense 3, count 0) and trial (noun sense 2) miss
//     the top 3.
//   - java: the capitalised sense (count 5) is skipped without using a
//     rank, so coffee is rank 1.
//   - notify: take_away is a collocation; notification is a derivation.
func TestBuildRules(t *testing.T) {
	got, err := Build(writeMini(t, nil), DefaultOptions)
	require.NoError(t, err)
	assert.Equal(t, "delete\ts1:cancel\ts2:erase\ts3:edit\n"+
		"java\ts1:coffee\n"+
		"notification\td1:notify\n"+
		"notify\td1:notification\ts1:advise\n"+
		"run\ts1:sprint\ts2:operate\ts3:tally\n", body(got))
	assert.Contains(t, string(got), "# options: senses=3 minlen=3 maxperword=16\n")
	assert.Contains(t, string(got), "# sha256 data.noun ")

	again, err := Build(writeMini(t, nil), DefaultOptions)
	require.NoError(t, err)
	assert.Equal(t, got, again)

	capped, err := Build(writeMini(t, nil), Options{Senses: 2, MinLen: 3, MaxPerWord: 1})
	require.NoError(t, err)
	assert.Equal(t, "delete\ts1:cancel\n"+
		"java\ts1:coffee\n"+
		"notification\td1:notify\n"+
		"notify\td1:notification\n"+
		"run\ts1:sprint\n", body(capped))
}

func TestBuildErrors(t *testing.T) {
	for name, edit := range map[string]map[string]string{
		"word count":       {"data.adv": "00000100 02 r zz good 0 000 | x\n"},
		"short words":      {"data.adv": "00000100 02 r 02 good 0 000 | x\n"},
		"pointer":          {"data.adv": "00000100 02 r 01 well 0 001 + 00000100 | x\n"},
		"pointer target":   {"data.adv": "00000100 02 r 01 well 0 001 + 00000100 r 01zz | x\n"},
		"index counts":     {"index.adv": "well r 2 0 1 0 00000100\n"},
		"missing synset":   {"index.adv": "well r 1 0 1 0 00000999\n"},
		"counts fields":    {"cntlist.rev": "run%2:38:00:: 1\n"},
		"counts sense":     {"cntlist.rev": "run%9:38:00:: 1 3\n"},
		"exception":        {"verb.exc": "lonely\n"},
		"dangling pointer": {"data.verb": strings.Replace(mini["data.verb"], "+ 00000200 n 0101", "+ 00000900 n 0101", 1)},
	} {
		_, err := Build(writeMini(t, edit), DefaultOptions)
		assert.ErrorIs(t, err, ErrFormat, name)
	}
	dir := writeMini(t, nil)
	require.NoError(t, os.Remove(filepath.Join(dir, "data.noun")))
	_, err := Build(dir, DefaultOptions)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// further is a miniature WordNet with the pointers the further kinds
// follow: apartment (sense of synset 200, with flat) has the hypernym
// synset 100 (housing, lodging, flat), the hyponym penthouse and the
// sibling condominium; lodging is tagged more often than housing. The
// adjectives current and latest are similar (&); the verb shut has close
// in its verb group ($) and a lexical "also see" (^) from word 1 to word
// 1 of bolt/lock, so lock is not reached. A sense of flat is in synset
// 100: its hyponyms there rank 2.
var further = map[string]string{
	"cntlist.rev": "lodging%1:06:00:: 1 5\nhousing%1:06:00:: 1 2\n",
	"index.noun": `apartment n 1 2 @ ~ 1 0 00000200  
condominium n 1 1 @ 1 0 00000300  
flat n 2 0 2 0 00000200 00000100  
housing n 1 1 ~ 1 1 00000100  
lodging n 1 1 ~ 1 1 00000100  
penthouse n 1 1 @ 1 0 00000400  
`,
	"index.verb": `bolt v 1 0 1 0 00000300  
close v 1 1 $ 1 0 00000200  
lock v 1 0 1 0 00000300  
shut v 1 2 $ ^ 1 0 00000100  
`,
	"index.adj": `current a 1 1 & 1 0 00000100  
latest a 1 1 & 1 0 00000200  
`,
	"index.adv": ``,
	"data.noun": `00000100 14 n 03 housing 0 lodging 0 flat 0 002 ~ 00000200 n 0000 ~ 00000300 n 0000 | structures collectively  
00000200 06 n 02 apartment 0 flat 0 002 @ 00000100 n 0000 ~ 00000400 n 0000 | a suite of rooms  
00000300 06 n 01 condominium 0 001 @ 00000100 n 0000 | a unit  
00000400 06 n 01 penthouse 0 001 @ 00000200 n 0000 | on the top floor  
`,
	"data.verb": `00000100 35 v 01 shut 0 002 $ 00000200 v 0000 ^ 00000300 v 0101 | move to close  
00000200 35 v 01 close 0 001 $ 00000100 v 0000 | cease to be open  
00000300 35 v 02 bolt 0 lock 0 000 | secure  
`,
	"data.adj": `00000100 00 a 01 current 0 001 & 00000200 s 0000 | occurring now  
00000200 00 s 01 latest 0 001 & 00000100 a 0000 | up to the minute  
`,
	"data.adv": ``,
}

// TestBuildFurther checks the further kinds on the miniature WordNet: each
// comes after the synonyms and derivations, is capped on its own, orders
// its words by tag count, and leaves out a word already a synonym (flat,
// which is also in apartment's hypernym synset).
func TestBuildFurther(t *testing.T) {
	opt := DefaultOptions
	opt.Further, opt.MaxPerKind = "gtehoc", 8
	got, err := Build(writeMini(t, further), opt)
	require.NoError(t, err)
	b := body(got)
	assert.Contains(t, b, "apartment\ts1:flat\th1:lodging,housing\to1:penthouse\tc1:condominium\n")
	assert.Contains(t, b, "current\tt1:latest\n")
	assert.Contains(t, b, "latest\tt1:current\n")
	assert.Contains(t, b, "shut\tg1:close\te1:bolt\n")
	assert.Contains(t, b, "penthouse\th1:apartment,flat\n")
	assert.Contains(t, b, "flat\ts1:apartment\ts2:housing,lodging\to1:penthouse\to2:condominium\n")
	assert.Contains(t, string(got), "# further: kinds=gtehoc maxperkind=8\n")

	opt.Further, opt.MaxPerKind = "h", 1
	got, err = Build(writeMini(t, further), opt)
	require.NoError(t, err)
	assert.Contains(t, body(got), "apartment\ts1:flat\th1:lodging\n")
	assert.NotContains(t, body(got), "latest")

	for _, bad := range []string{"s", "hx", "hh"} {
		opt.Further = bad
		_, err = Build(writeMini(t, further), opt)
		assert.ErrorIs(t, err, ErrOptions, bad)
	}

	// Without further kinds (the shipped options) only synonyms.
	got, err = Build(writeMini(t, further), DefaultOptions)
	require.NoError(t, err)
	assert.Equal(t, "apartment\ts1:flat\nbolt\ts1:lock\nflat\ts1:apartment\ts2:housing,lodging\nhousing\ts1:flat,lodging\nlock\ts1:bolt\nlodging\ts1:flat,housing\n", body(got))
}

// gloss is a miniature WordNet for the gloss relations. remember's first
// sense (tag count 9) is defined "recall knowledge (especially facts)
// from memories; have a recollection of children", then examples; its
// second (count 3) "keep in mind or memory; bear in heart; think of
// remembering"; its third (count 2) is past the two senses that count;
// memory's only sense is untagged (count 0).
var gloss = map[string]string{
	"cntlist.rev": "remember%2:31:00:: 1 9\nremember%2:31:01:: 2 3\nremember%2:40:00:: 3 2\n",
	"index.noun": `child n 1 0 1 0 00000100  
fact n 1 0 1 0 00000200  
friend n 1 0 1 0 00000300  
heart n 1 0 1 0 00000400  
knowledge n 1 0 1 0 00000500  
memory n 1 0 1 0 00000600  
mind n 1 0 1 0 00000700  
recollection n 1 0 1 0 00000800  
`,
	"index.verb": `recall v 1 0 1 0 00000100  
remember v 3 0 3 3 00000100 00000200 00000300  
`,
	"data.noun": `00000100 18 n 01 child 0 000 | a young person  
00000200 09 n 01 fact 0 000 | a piece of information  
00000300 18 n 01 friend 0 000 | a person you know  
00000400 08 n 01 heart 0 000 | the organ  
00000500 03 n 01 knowledge 0 000 | cognition  
00000600 09 n 01 memory 0 000 | something that is remembered; "a memory of the war"  
00000700 09 n 01 mind 0 000 | intellect  
00000800 09 n 01 recollection 0 000 | the ability to recall  
`,
	"data.verb": `00000100 31 v 02 remember 0 recall 0 000 | recall knowledge (especially facts) from memories; have a recollection of children; "I can't remember her name"; "fact or friend"  
00000200 31 v 01 remember 0 000 | keep in mind or memory; bear in heart; think of remembering  
00000300 40 v 01 remember 0 000 | show appreciation to a friend  
`,
}

// TestBuildGloss checks the gloss rules on the miniature WordNet: only
// the definitions of remember's two best senses count, and only tagged
// ones (memory gets none); the quoted examples and the parenthesised
// "facts" are left out; stop words (from, have, of, or) go; memories and
// children are lemmatised by a detachment rule and by noun.exc; recall
// shares the stem of a synonym, remembering is remember itself, memory
// repeats and keep, bear and think are no lemma, so none of them is kept;
// rank-1 words come first, in gloss order, and MaxGloss caps them.
func TestBuildGloss(t *testing.T) {
	got, err := Build(writeMini(t, gloss), DefaultOptions)
	require.NoError(t, err)
	assert.Equal(t, "recall\ts1:remember\n"+
		"remember\ts1:recall\tl1:knowledge,memory,recollection,child\tl2:mind,heart\n", body(got))
	assert.Contains(t, string(got), "# gloss: senses=2 mincount=1 maxperword=6\n")
	assert.Contains(t, string(got), "# sha256 noun.exc ")

	opt := DefaultOptions
	opt.MaxGloss = 5
	got, err = Build(writeMini(t, gloss), opt)
	require.NoError(t, err)
	assert.Contains(t, body(got), "remember\ts1:recall\tl1:knowledge,memory,recollection,child\tl2:mind\n")

	opt.GlossSenses = 0
	got, err = Build(writeMini(t, gloss), opt)
	require.NoError(t, err)
	assert.Equal(t, "recall\ts1:remember\nremember\ts1:recall\n", body(got))
	assert.NotContains(t, string(got), "# gloss:")
}

func TestDefinition(t *testing.T) {
	assert.Equal(t, "a b  c ; d", definition(`a b (x (y) z) c; d; "e (f)"; g`))
	assert.Equal(t, "", definition(`"only an example"`))
}

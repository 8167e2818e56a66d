package wordnet

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/stem"
)

// kindGloss marks a content word of the definition of one of the lemma's
// senses, lemmatised (remember -> memory, from "recall knowledge from
// memory").
const kindGloss = 'l'

// stopWords are the gloss words that never become relations: English
// closed-class words (articles and determiners, pronouns, prepositions,
// conjunctions, auxiliaries and modals, negation, quantifiers and
// degree adverbs), then the frames WordNet's definitions are written in
// ("something", "someone", "the act of", "a manner", "relating to",
// "having", "used", "usually", "especially", "characterized by" ...),
// picked from the most frequent words of all WordNet glosses, never from
// search queries. Both a gloss word and its lemma are checked.
var stopWords = setOf(
	// articles, determiners, quantifiers
	"the", "an", "this", "that", "these", "those", "some", "any", "all",
	"each", "every", "either", "neither", "both", "few", "many", "much",
	"more", "most", "less", "least", "other", "another", "such", "same",
	"own", "several", "various", "certain", "no", "none", "enough",
	// pronouns
	"she", "her", "hers", "herself", "him", "his", "himself", "its",
	"itself", "they", "them", "their", "theirs", "themselves", "you",
	"your", "yours", "yourself", "our", "ours", "ourselves", "mine",
	"myself", "who", "whom", "whose", "which", "what", "whatever",
	"whoever", "one", "ones", "oneself", "something", "someone",
	"somebody", "anything", "anyone", "anybody", "everything",
	"everyone", "nothing", "nobody",
	// prepositions
	"about", "above", "across", "after", "against", "along", "among",
	"around", "before", "behind", "below", "beneath", "beside", "besides",
	"between", "beyond", "but", "despite", "down", "during", "except",
	"for", "from", "inside", "into", "like", "near", "off", "onto", "out",
	"outside", "over", "past", "per", "since", "than", "through",
	"throughout", "till", "toward", "towards", "under", "underneath",
	"unlike", "until", "upon", "via", "with", "within", "without",
	// conjunctions and relative adverbs
	"and", "nor", "yet", "because", "although", "though", "while",
	"whereas", "whether", "unless", "when", "where", "whereby", "wherein",
	"why", "how", "then", "thus", "hence", "therefore",
	// auxiliaries and modals
	"are", "was", "were", "been", "being", "has", "have", "had", "having",
	"does", "did", "doing", "done", "can", "could", "may", "might",
	"must", "shall", "should", "will", "would", "ought",
	// negation, degree and frequency adverbs
	"not", "very", "too", "also", "only", "just", "even", "still", "quite",
	"rather", "almost", "often", "usually", "especially", "sometimes",
	"generally", "typically", "particularly", "mainly", "chiefly",
	"mostly", "etc", "esp", "else", "here", "there",
	// WordNet's definition frames
	"act", "manner", "state", "quality", "relating", "related", "used",
	"make", "made", "get", "cause", "become", "consisting", "characterized",
	"resembling", "containing", "kind", "way", "thing", "genus",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// excFiles are WordNet's morphological exception lists (inflected form,
// then base forms), by part of speech in posLetters order.
var excFiles = [...]string{"noun.exc", "verb.exc", "adj.exc", "adv.exc"}

// detach are WordNet's detachment rules (morph.c; suffix, replacement)
// by part of speech in posLetters order: nouns, verbs, adjectives;
// adverbs have none.
var detach = [4][][2]string{
	{{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	{{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	{{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
	nil,
}

// readExc parses the exception lists into exc[pos][form].
func (b *builder) readExc(dir string) error {
	for pi, name := range excFiles {
		b.exc[pi] = map[string][]string{}
		err := lines(filepath.Join(dir, name), func(line string, n int) error {
			f := strings.Fields(line)
			if len(f) < 2 {
				return fmt.Errorf("%w: %s:%d: want a form and its bases", ErrFormat, name, n)
			}
			b.exc[pi][f[0]] = append(b.exc[pi][f[0]], f[1:]...)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// morphy returns the first WordNet lemma w is a form of, trying nouns,
// verbs, adjectives and adverbs in turn as WordNet's morph.c does: for a
// part of speech, w itself and its exceptions if it has any, else w and
// its forms by one detachment rule, the first that is a lemma of that
// part of speech. It returns "" if none is.
func (b *builder) morphy(w string) string {
	for pi := range posLetters {
		cands := []string{w}
		if bases, ok := b.exc[pi][w]; ok {
			cands = append(cands, bases...)
		} else {
			for _, r := range detach[pi] {
				if strings.HasSuffix(w, r[0]) {
					cands = append(cands, w[:len(w)-len(r[0])]+r[1])
				}
			}
		}
		for _, c := range cands {
			if b.pos[c]&(1<<pi) != 0 {
				return c
			}
		}
	}
	return ""
}

// definition returns the definition part of a gloss: the ';'-separated
// parts before the first quoted example, with parenthesised text removed.
func definition(gloss string) string {
	var parts []string
	for p := range strings.SplitSeq(gloss, ";") {
		p = strings.TrimSpace(p)
		if strings.HasPrefix(p, `"`) {
			break
		}
		parts = append(parts, p)
	}
	var sb strings.Builder
	depth := 0
	for _, c := range []byte(strings.Join(parts, " ; ")) {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// glossWords returns the lemmas of the content words of gloss's
// definition, in order: lower-case ASCII words, stop words dropped, each
// lemmatised by morphy, kept if the lemma is a valid word and no stop
// word. Repeats are dropped later, by stem ([builder.keptGloss]).
func (b *builder) glossWords(gloss string) []string {
	words := strings.FieldsFunc(strings.ToLower(definition(gloss)), func(c rune) bool { return c < 'a' || c > 'z' })
	var out []string
	for _, w := range words {
		if stopWords[w] {
			continue
		}
		l := b.morphy(w)
		if l == "" || !b.valid(l) || stopWords[l] {
			continue
		}
		out = append(out, l)
	}
	return out
}

// addGloss records the gloss words of lemma's sense at rank, in gloss
// order after those of better ranks (relate visits ranks in order).
func (b *builder) addGloss(lemma string, sn sense, ss *synset, rank int) {
	if rank > b.opt.GlossSenses || sn.count < b.opt.GlossMinCount {
		return
	}
	for _, w := range b.glossWords(ss.gloss) {
		if w != lemma {
			b.gloss[lemma] = append(b.gloss[lemma], relation{word: w, kind: kindGloss, rank: rank})
		}
	}
}

// keptGloss returns the gloss relations lemma's line lists: at most
// opt.MaxGloss, best rank first and in gloss order, each of a stem
// neither the lemma's (ls) nor one of listed's (its synonyms and
// derivations) nor an earlier gloss word's.
func (b *builder) keptGloss(lemma, ls string, listed []relation) []relation {
	seen := map[string]bool{ls: true}
	for _, r := range listed {
		seen[stem.Stem(r.word)] = true
	}
	var out []relation
	for _, r := range b.gloss[lemma] {
		if len(out) >= b.opt.MaxGloss {
			break
		}
		if s := stem.Stem(r.word); !seen[s] {
			seen[s] = true
			out = append(out, r)
		}
	}
	return out
}

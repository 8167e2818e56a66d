package toolsearch

import (
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/filekind"
	"github.com/toolshelf/toolshelf/internal/engine/lexicon"
	"github.com/toolshelf/toolshelf/internal/engine/neighbours"
)

// Query-side weights. A word the model wrote counts 1. Its expansions are
// alternatives to it, each weighted below 1, and a word contributes only
// its best alternative: expansions add recall without adding weight.
const (
	// weightSynonym: a synonym of one word.
	weightSynonym = 0.5
	// weightSynonymPhrase: a synonym of a multi-word phrase ("merge
	// request" → "pull request") is more specific than one of a word.
	weightSynonymPhrase = 0.6
	// weightSynonymUnknown: when the query's word does not occur in the
	// catalog at all, its synonyms are the only route to its meaning.
	weightSynonymUnknown = 0.8
	// weightTranslation: a glossary translation of a CJK word stands for
	// the word itself; weightAltTranslation for its second or later
	// alternatives.
	weightTranslation    = 1.0
	weightAltTranslation = 0.6
	// weightValue: words inside values (paths, URLs, ids such as
	// "web-7d9f", "owner/repo", "README.md") describe arguments, not the
	// capability.
	weightValue = 0.3
)

// lexiconWeight is the weight of a WordNet relation: a derivation
// (notify → notification) is closer to the word than a synonym, and a
// synonym through the word's most frequent sense closer than one through
// its second or third.
func lexiconWeight(r lexicon.Relation) float64 {
	if int(r.Rank) > lexMaxRank {
		return 0
	}
	switch r.Kind {
	case lexicon.Derivation:
		return lexDeriv
	case lexicon.Synonym:
		return lexSyn - lexSynStep*float64(r.Rank-1)
	}
	// WordNet's further relations (hypernyms, hyponyms, co-hyponyms,
	// similar adjectives, verb groups, "also see") were measured at
	// weights 0.1-0.35 and raised no set on the tune halves
	// (docs/search-quality.md): they count nothing.
	return 0
}

// WordNet relation weights: lexDeriv for a derivation, lexSyn for a
// synonym through the word's most frequent sense, lexSynStep less for each
// rarer sense, down to lexMaxRank.
const (
	lexDeriv   = 0.6
	lexSyn     = 0.45
	lexSynStep = 0.1
	lexMaxRank = 3
)

// firstSenseMeaning reports whether r says what the word means: a
// synonym or derivation through its most frequent sense.
func firstSenseMeaning(r lexicon.Relation) bool {
	return r.Rank == 1 && (r.Kind == lexicon.Derivation || r.Kind == lexicon.Synonym)
}

// qalt is one alternative of a query word: index terms whose contributions
// add up (a phrase's words, or a word and its server term), with a weight.
type qalt struct {
	ids []int32
	w   float32
	via string // for explanations: "word", "synonym", "translation"
	// mass is w × the largest IDF of its terms in any field: how much of
	// the query a tool covers by matching this alternative (see
	// [coverageShare]).
	mass float32
	// meaning is set on an alternative that says what the word means
	// rather than what it is near: the word's abbreviation expansions,
	// and WordNet's derivations and synonyms through its most frequent
	// sense. For a server's evidence it counts as the word ([serverWeight]).
	meaning bool
}

// serverWeight is the weight an alternative's terms carry as evidence for
// a server ([search.Fit.Group]): its own weight, or the word's when it
// says what the word means. Which server a request is for is a coarser
// question than which tool: "remember" names the memory server's domain
// as plainly as "memory" does, while it tells its tools apart no better
// than a relation does.
func serverWeight(a qalt, word float32) float32 {
	if a.meaning {
		return min(max(a.w, word), 1)
	}
	return min(a.w, 1)
}

// qword is one word of the query with its alternatives, the literal form
// first; req is its bit in the required mask, if it was written "+word".
type qword struct {
	key  string
	text string // as the query wrote it, for explanations
	alts []qalt
	req  uint64
}

// has reports whether an alternative of w searches the term id.
func (w *qword) has(id int32) bool {
	for _, a := range w.alts {
		if slices.Contains(a.ids, id) {
			return true
		}
	}
	return false
}

// latinWord is a Latin word of the query on its way to a qword.
type latinWord struct {
	lower, stem string
	req         uint64
	w           float64
	afterHow    bool // the word right after "how": "how big"
}

// parseQuery turns the strings of one call into query words and the mask
// of required words (one bit per "+word").
func (ix *bm25Index) parseQuery(queries []string) ([]qword, uint64) {
	p := queryParser{ix: ix, byKey: map[string]int{}, literal: map[int32]bool{}}
	for _, qs := range queries {
		p.how = false
		for _, chunk := range strings.Fields(qs) {
			var req uint64
			if word, ok := cutRequired(chunk); ok {
				chunk = word
				if p.nreq < 64 {
					req = 1 << p.nreq
					p.nreq++
					p.need |= req
				}
			}
			cw := 1.0
			if req == 0 && ix.valueLike(chunk) {
				cw = weightValue
			}
			p.chunk(chunk, req, cw)
			if kind, ok := filekind.Of(chunk); ok && !slices.Contains(p.files, kind) {
				if kind == filekind.Text {
					kind = filekind.File
				}
				p.files = append(p.files, kind)
			}
		}
		p.flush()
	}
	p.fileWords()
	// An expansion never re-adds a term the query says literally.
	for i := range p.words {
		alts := p.words[i].alts
		for j := 1; j < len(alts); j++ {
			alts[j].ids = slices.DeleteFunc(alts[j].ids, func(id int32) bool { return p.literal[id] })
		}
		// Each alternative's mass, for query coverage. Words joined into
		// one ("pull request" as pullrequest, "sequential thinking" as the
		// server) are the same concept as the words they join, which
		// already carry its mass: counted again, a tool without the
		// joined form would lose coverage for saying it in two words.
		for j := range alts {
			if alts[j].via == "joined" || alts[j].via == "server" {
				continue
			}
			m := float32(0)
			for _, id := range alts[j].ids {
				for _, v := range ix.idf[id] {
					m = max(m, v)
				}
			}
			alts[j].mass = alts[j].w * m
		}
	}
	return p.words, p.need
}

type queryParser struct {
	ix      *bm25Index
	words   []qword
	byKey   map[string]int
	literal map[int32]bool
	need    uint64
	nreq    int
	seq     []latinWord // Latin words since the last CJK run or query
	files   []string    // the kinds of the file names the query wrote
	how     bool        // the last word was "how"
}

// File names as words (package internal/engine/filekind): "report.pdf"
// says "file" as plainly as the word does, so it counts as that word,
// weightFileName; the medium the extension names ("meeting.mp3": audio,
// "photo.png": image) is a word of the request too, at weightFileKind, a
// derivation's weight: the extension says it, the request does not. A
// text file is what "file" means when nothing else is said, so "text" is
// not added: on the everyday set's tune half it pulled read_text_file's
// name over get_file_info for "when was notes.txt last changed?" and
// every request naming a text file for another task.
const (
	weightFileName = 1.0
	weightFileKind = 0.6
	// viaFileName names these words in explanations.
	viaFileName = "file name"
)

// fileWords adds the words the query's file names stand for: "file",
// and the medium of each media file ("audio", "image", ...), unless the
// query wrote them itself.
func (p *queryParser) fileWords() {
	if len(p.files) == 0 {
		return
	}
	p.fileWord(filekind.File, weightFileName)
	for _, k := range p.files {
		if k != filekind.File {
			p.fileWord(k, weightFileKind)
		}
	}
}

// fileWord adds word k at weight w, unless the query has it.
func (p *queryParser) fileWord(k string, w float64) {
	s := stem(k)
	wi, dup := p.word(s, k, 0)
	if dup {
		return
	}
	a := qalt{w: float32(w), via: viaFileName}
	if id, ok := p.id(s); ok {
		a.ids = append(a.ids, id)
		p.literal[id] = true
	}
	if id, ok := p.ix.serverStems[s]; ok {
		a.ids = append(a.ids, id)
	}
	p.words[wi].alts = append(p.words[wi].alts, a)
}

// word returns the index of the qword for key, creating it; dup reports an
// existing one, which takes req too.
func (p *queryParser) word(key, text string, req uint64) (i int, dup bool) {
	if i, ok := p.byKey[key]; ok {
		p.words[i].req |= req
		return i, true
	}
	p.byKey[key] = len(p.words)
	p.words = append(p.words, qword{key: key, text: text, req: req})
	return len(p.words) - 1, false
}

func (p *queryParser) id(term string) (int32, bool) {
	id, ok := p.ix.dict[term]
	return id, ok
}

// lexicon adds the WordNet relations of the stemmed word s to query word
// wi, each an alternative weighted by [lexiconWeight] × w.
func (p *queryParser) lexicon(wi int, s string, w float64, known bool) {
	for _, r := range lexicon.RelatedStem(s) {
		if r.Kind == lexicon.Gloss {
			if r.Rank == 1 && !known {
				p.glossServer(wi, r.Word)
			}
			continue
		}
		id, ok := p.id(stem(r.Word))
		if !ok && firstSenseMeaning(r) {
			// A first-sense derivation or synonym no tool says may still
			// name a server: memorise → memory.
			p.serverOnly(wi, r.Word, "wordnet "+r.Kind.String())
			continue
		}
		if !ok || p.words[wi].has(id) {
			continue // relations come best first: the first one counts
		}
		wl := lexiconWeight(r)
		if wl <= 0 {
			continue
		}
		p.words[wi].alts = append(p.words[wi].alts, qalt{ids: []int32{id}, w: float32(wl * w), via: "wordnet " + r.Kind.String(), meaning: firstSenseMeaning(r)})
	}
}

// weightAttribute: "how big" asks for a size. The adjective right after
// "how" has its WordNet attribute (big → size, old → age, long → length)
// as an alternative at a derivation's weight; elsewhere ("a big file")
// the adjective describes and is not asked about, so it has none.
const weightAttribute = 0.6

// attributes adds the attributes of the adjective with stem s, written
// right after "how", to query word wi.
func (p *queryParser) attributes(wi int, s string, w float64) {
	for _, r := range lexicon.RelatedStem(s) {
		if r.Kind != lexicon.Attribute || r.Rank != 1 {
			continue
		}
		if id, ok := p.id(stem(r.Word)); ok && !p.words[wi].has(id) {
			p.words[wi].alts = append(p.words[wi].alts, qalt{ids: []int32{id}, w: float32(weightAttribute * w), via: "wordnet attribute", meaning: true})
		}
	}
}

// glossServer adds gloss word g of query word wi as evidence for a server
// it names, or, when it names none, the first-sense synonyms and
// derivations of g that do ("forget": "stop remembering"; remembering:
// memory).
func (p *queryParser) glossServer(wi int, g string) {
	if p.serverOnly(wi, g, "wordnet gloss") {
		return
	}
	for _, r := range lexicon.Related(g) {
		if firstSenseMeaning(r) {
			p.serverOnly(wi, r.Word, "wordnet gloss")
		}
	}
}

// serverOnly adds word w, related to query word wi by via, as evidence
// for the server it names, with no score, and reports whether it names
// one.
func (p *queryParser) serverOnly(wi int, w, via string) bool {
	id, ok := p.ix.serverStems[stem(w)]
	if ok && !p.words[wi].has(id) {
		p.words[wi].alts = append(p.words[wi].alts, qalt{ids: []int32{id}, via: via, meaning: true})
	}
	return ok
}

// GloVe neighbours (package internal/engine/neighbours) of a query word the
// catalog lacks are alternatives at weightNeighbour × their cosine, if
// that is at least minNeighbourCos: below WordNet's relations, since
// distributional neighbours include co-hyponyms and merely topical words.
// A word the catalog has is not expanded this way: measured on the tune
// halves, its neighbours only added noise (docs/search-quality.md).
const (
	weightNeighbour = 0.3
	minNeighbourCos = 0.55
	// viaNeighbour names a GloVe neighbour in explanations.
	viaNeighbour = "glove neighbour"
)

// neighbours adds the GloVe neighbours of query word wi to its
// alternatives: those of its form lower when the source lists it, else
// those of the most frequent word of its stem s, each whose stem the
// catalog has, weighted by [weightNeighbour] × cosine × w.
func (p *queryParser) neighbours(wi int, lower, s string, w float64) {
	nbs := neighbours.Of(lower)
	if nbs == nil {
		nbs = neighbours.OfStem(s)
	}
	for _, n := range nbs {
		if n.Cos < minNeighbourCos {
			break // best first
		}
		id, ok := p.id(stem(n.Word))
		if !ok || p.words[wi].has(id) {
			continue
		}
		p.words[wi].alts = append(p.words[wi].alts, qalt{ids: []int32{id}, w: float32(weightNeighbour * float64(n.Cos) * w), via: viaNeighbour})
	}
}

// alt returns the alternative of an expansion, when the catalog has all of
// its terms ("pull request" with only "request" is not that phrase).
func (p *queryParser) alt(e expansion, w float32, via string) (qalt, bool) {
	a := qalt{w: w, via: via, ids: make([]int32, 0, len(e.terms))}
	for _, t := range e.terms {
		id, ok := p.id(t)
		if !ok {
			return qalt{}, false
		}
		a.ids = append(a.ids, id)
	}
	return a, true
}

// chunk analyses one whitespace-separated chunk of the query.
func (p *queryParser) chunk(chunk string, req uint64, cw float64) {
	var parts []latinWord
	pieces(chunk, func(pc piece) {
		if pc.cjk {
			p.seq = append(p.seq, parts...)
			parts = parts[:0]
			p.flush()
			p.cjk(pc.text, req, cw)
			return
		}
		w := strings.ToLower(pc.text)
		if pc.compound {
			// "GitHub", "create_pull_request": when the catalog knows the
			// whole word, it is one word, not its pieces ("GitHub" must
			// not hit git's tools).
			_, word := p.id(stem(w))
			_, server := p.id(groupTerm(w))
			if word || server {
				n, l := 0, 0
				for i := len(parts) - 1; i >= 0 && l < len(w); i-- {
					l += len(parts[i].lower)
					n++
				}
				if l == len(w) {
					parts = parts[:len(parts)-n]
				}
				parts = append(parts, latinWord{w, stem(w), req, cw, false})
			}
			p.how = false
			return
		}
		how := p.how
		p.how = w == "how"
		if req == 0 && (isStop(w) || allDigits(w)) || len(w) < 2 {
			return
		}
		parts = append(parts, latinWord{w, stem(w), req, cw, how})
	})
	p.seq = append(p.seq, parts...)
}

// flush turns the pending Latin words into query words, with their server
// terms and vocabulary expansions.
func (p *queryParser) flush() {
	stems := make([]string, len(p.seq))
	for i, w := range p.seq {
		stems[i] = w.stem
	}
	for i, lw := range p.seq {
		wi, dup := p.word(lw.stem, lw.lower, lw.req)
		if dup {
			continue
		}
		lit := qalt{w: float32(lw.w), via: "word"}
		if id, ok := p.id(lw.stem); ok {
			lit.ids = append(lit.ids, id)
			p.literal[id] = true
		}
		if g := groupTerm(lw.lower); g != "" {
			if id, ok := p.id(g); ok {
				lit.ids = append(lit.ids, id)
			} else if id, ok := p.ix.serverStems[lw.stem]; ok {
				// "memories" for the memory server: a server's name is
				// a word, and its inflections name it too.
				lit.ids = append(lit.ids, id)
			}
		}
		if id, ok := p.id(exactPrefix + lw.lower); ok {
			lit.ids = append(lit.ids, id)
		}
		known := len(lit.ids) > 0
		p.words[wi].alts = append(p.words[wi].alts, lit)
		p.ix.vocab.expandLatin(stems, i, func(exps []expansion, n int) {
			ws := weightSynonym
			switch {
			case n > 1:
				ws = weightSynonymPhrase
			case !known:
				ws = weightSynonymUnknown
			}
			for _, e := range exps {
				if a, ok := p.alt(e, float32(ws*lw.w), "synonym"); ok {
					a.meaning = true
					p.words[wi].alts = append(p.words[wi].alts, a)
				}
			}
		})
		// General English through WordNet: synonyms and derivations of
		// the word's lemmas, each an alternative below the word.
		p.lexicon(wi, lw.stem, lw.w, known)
		if lw.afterHow {
			p.attributes(wi, lw.stem, lw.w)
		}
		// Distributional neighbours, below WordNet's relations, for a
		// word the catalog lacks.
		if !known {
			p.neighbours(wi, lw.lower, lw.stem, lw.w)
		}
		// Two or three words that spell one word of the catalog ("local
		// storage" for localstorage, "create pull request" for the joined
		// name createpullrequest); two that spell a server ("sequential
		// thinking").
		joined, text, req := lw.lower, lw.lower, lw.req
		for j := i + 1; j < len(p.seq) && j <= i+2; j++ {
			joined += p.seq[j].lower
			text += " " + p.seq[j].lower
			req |= p.seq[j].req
			if id, ok := p.id(stem(joined)); ok {
				ji, dup := p.word(stem(joined), text, req)
				if !dup {
					p.words[ji].alts = append(p.words[ji].alts, qalt{ids: []int32{id}, w: float32(lw.w), via: "joined"})
					p.literal[id] = true
				}
			}
		}
		if i+1 < len(p.seq) {
			if g := groupTerm(lw.lower + p.seq[i+1].lower); g != "" {
				if id, ok := p.id(g); ok {
					gi, dup := p.word(g, lw.lower+" "+p.seq[i+1].lower, lw.req|p.seq[i+1].req)
					if !dup {
						p.words[gi].alts = append(p.words[gi].alts, qalt{ids: []int32{id}, w: float32(lw.w), via: "server"})
					}
				}
			}
		}
	}
	p.seq = p.seq[:0]
}

// cjk analyses a CJK run: segmented over the glossary's words, each word
// searched as its character bigrams and, through the glossary, as its
// translation.
func (p *queryParser) cjk(run string, req uint64, cw float64) {
	p.ix.vocab.segment(run, func(seg string, exp []expansion) {
		wi, dup := p.word(seg, seg, req)
		if dup {
			return
		}
		lit := qalt{w: float32(cw), via: "word"}
		bigrams(seg, func(b string) {
			if id, ok := p.id(b); ok {
				lit.ids = append(lit.ids, id)
				p.literal[id] = true
			}
		})
		p.words[wi].alts = append(p.words[wi].alts, lit)
		for _, e := range exp {
			w := weightTranslation
			if e.alt {
				w = weightAltTranslation
			}
			via := "translation"
			if e.w > 0 {
				w, via = e.w, e.via
			}
			if a, ok := p.alt(e, float32(w*cw), via); ok {
				p.words[wi].alts = append(p.words[wi].alts, a)
			}
			// A one-word translation is a word like one the model wrote:
			// it has WordNet relations too. CC-CEDICT's are not expanded:
			// a word already has up to six of them, near-synonyms, and
			// with WordNet's on top the dev set's Chinese queries scored
			// the same on the tune half (see docs/search-quality.md).
			if len(e.terms) == 1 && e.via != viaDictionary {
				p.lexicon(wi, e.terms[0], w*cw, true)
			}
		}
	})
}

func allDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// valueLike reports whether a whitespace-separated chunk of a query is an
// argument value rather than a word: a path, URL, file name, repository
// ("owner/repo"), mention, or an identifier mixing letters and digits
// ("web-7d9f"), unless the vocabulary knows it ("k8s").
func (ix *bm25Index) valueLike(chunk string) bool {
	c := strings.Trim(chunk, ".,;:!?()[]{}\"'`“”‘’")
	if c == "" {
		return false
	}
	if strings.ContainsAny(c, "/\\.:@=#~") {
		return true
	}
	value := false
	pieces(c, func(p piece) {
		if p.cjk || p.compound {
			return
		}
		digit, letter := false, false
		for _, r := range p.text {
			switch {
			case r >= '0' && r <= '9':
				digit = true
			default:
				letter = true
			}
		}
		if digit && letter && !ix.vocab.known(strings.ToLower(p.text)) {
			value = true
		}
	})
	return value
}

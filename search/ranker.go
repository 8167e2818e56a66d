package search

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolshelf/toolshelf/registry"
)

// Errors returned by this package. Model-facing problems are never Go
// errors: they come back as [registry.Result] values with IsError set.
var (
	// ErrVocabulary reports a malformed vocabulary text.
	ErrVocabulary = errors.New("search: vocabulary")
	// ErrOptions reports an invalid [Options] value.
	ErrOptions = errors.New("search: options")
)

// Hit is one ranked tool.
type Hit struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// A Ranker builds a search index over tools. The built-in one is [BM25F];
// a harness with an embedding model can bring its own.
type Ranker interface {
	// Index builds an index over tools. It is called once per searcher
	// (and once per distinct set of tools announced mid-session).
	Index(ctx context.Context, tools []*registry.Tool) (Index, error)
}

// An Index ranks the tools it was built over.
type Index interface {
	// Search returns up to limit tools matching queries (the strings of one
	// tool_search call, searched together), best first. Ties must be broken
	// by name so that results are deterministic. A hit needs a positive
	// score; Search may return fewer than limit hits, or none.
	Search(ctx context.Context, queries []string, limit int) ([]Hit, error)
}

// BM25F is the built-in [Ranker]: BM25 over weighted fields (name parts,
// search hints, description, parameter names and descriptions), with light
// stemming, stop words, CJK bigrams, and query expansion through a
// [Vocabulary]. A query word written "+word" ("+" directly before a letter)
// is required; a searcher relaxes a requirement no tool can meet. It needs no model
// and no network. The zero value uses the defaults.
type BM25F struct {
	// Vocabulary expands queries; nil means [DefaultVocabulary].
	Vocabulary *Vocabulary
	// K1 and B are BM25's saturation and length normalisation; 0 means 1.2
	// and 0.75.
	K1, B float64
}

// Field weights. The name says most about what a tool does; a parameter's
// description the least. Chosen by reasoning about the fields, then checked
// on the dev set as a whole (never per query).
const (
	weightName      = 3.0
	weightServer    = 0.5
	weightHints     = 2.0
	weightDesc      = 1.0
	weightParamName = 0.6
	weightParamDesc = 0.25
	// weightCoverage scales the bonus for covering the name's words.
	weightCoverage = 0.25

	// Query-side weights: a word the model wrote counts 1; a synonym of it
	// counts less, since synonyms are looser; a glossary translation of a
	// CJK word counts as the word itself.
	weightSynonym     = 0.35
	weightTranslation = 1.0
	maxQueryWeight    = 2.5
)

type field struct {
	weight float64
	b      float64 // length normalisation of the field
}

var fields = [...]field{
	{weightName, 0.3},
	{weightServer, 0},
	{weightHints, 0.3},
	{weightDesc, 0.75},
	{weightParamName, 0.5},
	{weightParamDesc, 0.75},
}

const (
	fName = iota
	fServer
	fHints
	fDesc
	fParamName
	fParamDesc
	nFields
)

// posting is one (term, tool) pair: the tool and the term's precomputed
// BM25F contribution (IDF × saturated weighted frequency).
type posting struct {
	doc    int32
	impact float32
	inName bool // the term is one of the tool name's words
}

type bm25Index struct {
	vocab    *Vocabulary
	names    []string  // by doc id, sorted: ties break by id = by name
	nameLen  []float32 // distinct terms in each tool's name
	dict     map[string]int32
	postings [][]posting
	pool     sync.Pool // *scratch
}

type scratch struct {
	scores  []float32
	cover   []float32
	masks   []uint64
	touched []int32
}

// Index builds the BM25F index over tools.
func (r *BM25F) Index(ctx context.Context, tools []*registry.Tool) (Index, error) {
	k1, b := r.K1, r.B
	if k1 == 0 {
		k1 = 1.2
	}
	if b == 0 {
		b = 0.75
	}
	vocab := r.Vocabulary
	if vocab == nil {
		vocab = DefaultVocabulary()
	}
	sorted := make([]*registry.Tool, len(tools))
	copy(sorted, tools)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })

	ix := &bm25Index{vocab: vocab, names: make([]string, len(sorted)), nameLen: make([]float32, len(sorted)), dict: map[string]int32{}}
	type docTerms struct {
		tf  [nFields]map[string]float64
		len [nFields]float64
	}
	docs := make([]docTerms, len(sorted))
	var avg [nFields]float64
	for i, t := range sorted {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ix.names[i] = t.Name
		d := &docs[i]
		for f := range d.tf {
			d.tf[f] = map[string]float64{}
		}
		add := func(f int, s string) {
			terms(s, func(term string, _ bool) {
				d.tf[f][term]++
				d.len[f]++
			})
		}
		server, tool, ok := registry.SplitMCPName(t.Name)
		if !ok {
			tool = t.Name
		}
		add(fName, tool)
		add(fServer, server)
		for _, h := range t.SearchHints {
			add(fHints, h)
		}
		add(fDesc, t.Description)
		walkParams(t, func(name, desc string) {
			add(fParamName, name)
			add(fParamDesc, desc)
		})
		ix.nameLen[i] = float32(max(1, len(d.tf[fName])))
		for f := range avg {
			avg[f] += d.len[f]
		}
	}
	n := float64(len(sorted))
	for f := range avg {
		if n > 0 {
			avg[f] /= n
		}
		if avg[f] == 0 {
			avg[f] = 1
		}
	}
	// Pseudo term frequency per (term, doc), then IDF once df is known.
	type acc struct {
		doc    int32
		tf     float64
		inName bool
	}
	byTerm := map[string][]acc{}
	var order []string
	for i := range docs {
		d := &docs[i]
		combined := map[string]float64{}
		for f := 0; f < nFields; f++ {
			norm := 1 - fields[f].b + fields[f].b*d.len[f]/avg[f]
			for term, c := range d.tf[f] {
				combined[term] += fields[f].weight * c / norm
			}
		}
		for term, tf := range combined {
			if _, ok := byTerm[term]; !ok {
				order = append(order, term)
			}
			byTerm[term] = append(byTerm[term], acc{int32(i), tf, d.tf[fName][term] > 0})
		}
	}
	sort.Strings(order)
	ix.postings = make([][]posting, len(order))
	for id, term := range order {
		accs := byTerm[term]
		sort.Slice(accs, func(i, j int) bool { return accs[i].doc < accs[j].doc })
		df := float64(len(accs))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		ps := make([]posting, len(accs))
		for i, a := range accs {
			ps[i] = posting{doc: a.doc, impact: float32(idf * a.tf * (k1 + 1) / (k1 + a.tf)), inName: a.inName}
		}
		ix.dict[term] = int32(id)
		ix.postings[id] = ps
	}
	ix.pool.New = func() any {
		n := len(ix.names)
		return &scratch{scores: make([]float32, n), cover: make([]float32, n), masks: make([]uint64, n)}
	}
	return ix, nil
}

// walkParams calls fn for every property of a schema the model sees,
// nested ones included, down to a bounded depth, in sorted property order
// (so that term ids, and with them float sums, never depend on map order).
// It walks the already parsed schema: decoding the raw JSON again cost
// most of an index build.
func walkParams(t *registry.Tool, fn func(name, desc string)) {
	if t.InputSchema == nil {
		return
	}
	walkSchema(t.InputSchema, 0, t.Injected, fn)
}

func walkSchema(s *jsonschema.Schema, depth int, skip []string, fn func(name, desc string)) {
	if s == nil || depth > 6 {
		return
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		if depth == 0 && slices.Contains(skip, n) {
			continue // injected by the host: not in the model's schema
		}
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := s.Properties[n]
		desc := ""
		if p != nil {
			desc = p.Description
		}
		fn(n, desc)
		walkSchema(p, depth+1, nil, fn)
	}
	walkSchema(s.Items, depth+1, nil, fn)
}

// qterm is one analysed query term.
type qterm struct {
	id  int32
	w   float32
	req uint64
}

// Query-side weights beyond the word itself.
const (
	// weightSynonymPhrase: a synonym of a multi-word phrase ("merge
	// request" → "pull request") is more specific than one of a word.
	weightSynonymPhrase = 0.6
	// weightSynonymUnknown: when the query's word does not occur in the
	// catalog at all, its synonyms are the only route to its meaning.
	weightSynonymUnknown = 0.8
	// weightAltTranslation: a glossary entry's second or later alternative.
	weightAltTranslation = 0.6
	// weightValue: words inside values (paths, URLs, ids such as
	// "web-7d9f", "owner/repo", "README.md") describe arguments, not the
	// capability.
	weightValue = 0.3
)

// parseQuery turns the strings of one call into weighted index terms and
// the mask of required groups (one bit per "+word"). A term's weight is the
// larger of what the query said directly (summed over repetitions) and the
// strongest expansion that reached it, capped.
func (ix *bm25Index) parseQuery(queries []string) ([]qterm, uint64) {
	type acc struct {
		orig, exp float64
		req       uint64
	}
	accs := map[int32]*acc{}
	var ids []int32
	get := func(term string) *acc {
		id, ok := ix.dict[term]
		if !ok {
			return nil
		}
		a := accs[id]
		if a == nil {
			a = &acc{}
			accs[id] = a
			ids = append(ids, id)
		}
		return a
	}
	addOrig := func(term string, w float64, req uint64) {
		if a := get(term); a != nil {
			a.orig += w
			a.req |= req
		}
	}
	addExp := func(term string, w float64, req uint64) {
		if a := get(term); a != nil {
			a.exp = math.Max(a.exp, w)
			a.req |= req
		}
	}
	var need uint64
	nreq := 0
	type word struct {
		term string
		req  uint64
		w    float64
	}
	var seq []word
	var terms []string
	flush := func() {
		terms = terms[:0]
		for _, w := range seq {
			terms = append(terms, w.term)
		}
		for i := range seq {
			ix.vocab.expandLatin(terms, i, func(exp []expTerm, n int) {
				w := weightSynonym
				switch {
				case n > 1:
					w = weightSynonymPhrase
				case !ix.has(terms[i]):
					w = weightSynonymUnknown
				}
				w *= seq[i].w
				for _, t := range exp {
					addExp(t.term, w, seq[i].req)
				}
			})
		}
		seq = seq[:0]
	}
	for _, qs := range queries {
		for _, chunk := range strings.Fields(qs) {
			var req uint64
			if word, ok := cutRequired(chunk); ok {
				chunk = word
				if nreq < 64 {
					req = 1 << nreq
					nreq++
					need |= req
				}
			}
			cw := 1.0
			if req == 0 && ix.valueLike(chunk) {
				cw = weightValue
			}
			pieces(chunk, func(p piece) {
				if p.cjk {
					flush()
					bigrams(p.text, func(b string) { addOrig(b, cw, req) })
					ix.vocab.expandCJK(p.text, func(exp []expTerm) {
						for _, t := range exp {
							w := weightTranslation
							if t.alt {
								w = weightAltTranslation
							}
							addExp(t.term, w*cw, req)
						}
					})
					return
				}
				w := strings.ToLower(p.text)
				if req == 0 && (!p.compound && isStop(w) || allDigits(w)) || len(w) < 2 {
					return
				}
				t := stem(w)
				addOrig(t, cw, req)
				if !p.compound {
					seq = append(seq, word{t, req, cw})
				}
			})
		}
		flush()
	}
	out := make([]qterm, 0, len(ids))
	for _, id := range ids {
		a := accs[id]
		out = append(out, qterm{id: id, w: float32(math.Min(math.Max(a.orig, a.exp), maxQueryWeight)), req: a.req})
	}
	return out, need
}

func (ix *bm25Index) has(term string) bool {
	_, ok := ix.dict[term]
	return ok
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

// Search ranks the indexed tools for queries. Scoring walks the postings of
// the query's terms only; the per-tool arrays are pooled, so a query
// allocates in proportion to its own length and limit, not to the catalog.
func (ix *bm25Index) Search(ctx context.Context, queries []string, limit int) ([]Hit, error) {
	if limit <= 0 || len(ix.names) == 0 {
		return nil, nil
	}
	qterms, need := ix.parseQuery(queries)
	if len(qterms) == 0 {
		return nil, nil
	}
	sc := ix.pool.Get().(*scratch)
	defer func() {
		for _, d := range sc.touched {
			sc.scores[d] = 0
			sc.cover[d] = 0
			sc.masks[d] = 0
		}
		sc.touched = sc.touched[:0]
		ix.pool.Put(sc)
	}()
	for _, q := range qterms {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, p := range ix.postings[q.id] {
			if sc.scores[p.doc] == 0 {
				sc.touched = append(sc.touched, p.doc)
			}
			sc.scores[p.doc] += q.w * p.impact
			sc.masks[p.doc] |= q.req
			if p.inName {
				sc.cover[p.doc] += min(q.w, 1)
			}
		}
	}
	// Name coverage: a tool whose name's words the query covers (say
	// "take screenshot" for take_screenshot) is the likelier match than
	// one that shares a single rarer word.
	for _, d := range sc.touched {
		c := min(sc.cover[d]/ix.nameLen[d], 1)
		sc.scores[d] *= 1 + weightCoverage*c*c
	}
	// Keep the best limit: score descending, then doc id (= name) ascending.
	top := make([]int32, 0, limit+1)
	better := func(a, b int32) bool {
		if sc.scores[a] != sc.scores[b] {
			return sc.scores[a] > sc.scores[b]
		}
		return a < b
	}
	for _, d := range sc.touched {
		if sc.masks[d]&need != need || sc.scores[d] <= 0 {
			continue
		}
		if len(top) == limit && !better(d, top[limit-1]) {
			continue
		}
		i := len(top)
		top = append(top, d)
		for i > 0 && better(d, top[i-1]) {
			top[i] = top[i-1]
			i--
		}
		top[i] = d
		if len(top) > limit {
			top = top[:limit]
		}
	}
	hits := make([]Hit, len(top))
	for i, d := range top {
		hits[i] = Hit{Name: ix.names[d], Score: float64(sc.scores[d])}
	}
	return hits, nil
}

package toolsearch

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Errors returned by this package. Model-facing problems are never Go
// errors: they come back as [registry.Result] values with IsError set.
var (
	// ErrVocabulary reports a malformed vocabulary text.
	ErrVocabulary = errors.New("search: vocabulary")
	// ErrOptions is [search.ErrOptions].
	ErrOptions = search.ErrOptions
)

// BM25F is the built-in [search.Ranker]: BM25 over weighted fields (the tool
// name's words, its server, search hints, description, parameter names and
// descriptions), each field with its own length normalisation and document
// frequencies; Snowball stemming, stop words, CJK bigrams, and bounded
// query expansion through a [Vocabulary]. The name counts by how much of
// it the query covers; a server name matches only as a whole word; text
// that most tools of one server repeat (shared parameters, stock
// sentences) is discounted. A query word written "+word" ("+" directly
// before a letter) is required; a searcher relaxes a requirement no tool
// can meet. It needs no model and no network. The zero value uses the
// defaults.
type BM25F struct {
	// Vocabulary expands queries; nil means [DefaultVocabulary].
	Vocabulary *Vocabulary
	// K1 is BM25's term-frequency saturation and B the description's length
	// normalisation (other fields have their own); 0 means 1.2 and 0.75.
	K1, B float64
}

// Fields of a tool. fName is scored by coverage (see [bm25Index.Search]);
// the others by BM25 with per-field document frequencies.
const (
	fName       = iota // the tool name's words ("create", "issue")
	fNameJoined        // the name's words joined ("createissue"), for a query that writes the name
	fNameExact         // the name's words as written, unstemmed ("notifications")
	fGroup             // the server, one whole term
	fHints             // search hints
	fDesc              // description
	fParamName         // parameter names
	fParamDesc         // parameter descriptions
	nFields
)

// fieldSpec is one field's weight, length normalisation and label.
type fieldSpec struct {
	label  string
	weight float64
	b      float64
}

// Field weights. The name (scored by coverage, on its own scale) and the
// description say most about what a tool does, a parameter's description
// the least. Chosen by reasoning about the fields, then set on the tune
// halves of the query sets as a whole, never per query. Never modified.
var fieldSpecs = [nFields]fieldSpec{
	fName:       {"name", 1.5, 0},
	fNameJoined: {"name (joined)", 2.0, 0},
	fNameExact:  {"name (exact form)", 0.5, 0},
	fGroup:      {"server", 1.0, 0},
	fHints:      {"hints", 2.0, 0.3},
	fDesc:       {"description", 2.0, 0.75},
	fParamName:  {"parameter names", 0.5, 0.5},
	fParamDesc:  {"parameter descriptions", 0.3, 0.75},
}

// exactPrefix marks a name word's exact form ("\x02notifications"),
// indexed where stemming changes it, so that a query's plural or tense
// still prefers the name that has it.
const exactPrefix = "\x02"

// groupPrefix marks a server's whole-word term ("\x01github"), which no
// word of text can produce.
const groupPrefix = "\x01"

// groupTerm returns the term of a server name: its letters and digits,
// lower-cased, so "sequential-thinking" is "sequentialthinking"; "" when
// it has none.
func groupTerm(server string) string {
	var b strings.Builder
	b.WriteString(groupPrefix)
	for _, r := range strings.ToLower(server) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	if b.Len() == len(groupPrefix) {
		return ""
	}
	return b.String()
}

// boilerplateShare is the share of a server's tools beyond which a term of
// a text field counts as the server's boilerplate ("'key' (access key)" on
// 172 of 180 tools): its weight falls linearly to 0 for a term every tool
// has. boilerplateMin is the smallest server the rule applies to.
const (
	boilerplateShare = 0.5
	boilerplateMin   = 5
)

// posting is one (term, tool) pair: the tool, the term's precomputed
// contribution through every field but the name, and its IDF in the name
// when the name has it.
type posting struct {
	doc     int32
	impact  float32
	nameIDF float32
	// said: the tool says the term in its name, description or hints,
	// undiscounted: the term is the tool's own word, not its server's
	// boilerplate ([search.Fit.Group] counts it in full).
	said bool
}

// discKey names one (server, term, field) whose weight is discounted.
type discKey struct {
	group, term int32
	field       uint8
}

type bm25Index struct {
	vocab    *Vocabulary
	k1       float64
	specs    [nFields]fieldSpec // fieldSpecs with the description's b of BM25F.B
	tools    []*registry.Tool   // by doc id, sorted by name: ties break by id = by name
	names    []string
	group    []int32 // server of each doc, -1 for none
	groups   map[string]int32
	docLen   [][nFields]float32
	avg      [nFields]float64
	nameTot  []float32 // sum of the name's term IDFs
	dict     map[string]int32
	idf      [][nFields]float32 // by term id
	disc     map[discKey]float32
	postings [][]posting
	pool     sync.Pool // *scratch
	// gterms: the servers each term is evidence for ([groupEvidence]),
	// with its weight there; ngroups counts the servers.
	gterms  map[int32][]groupWeight
	ngroups int
	// serverStems maps the stem of a server's name to its term, for a
	// query word that inflects it ("memories").
	serverStems map[string]int32
	// serverNames holds the terms of servers' names.
	serverNames map[int32]bool
}

// groupWeight is what one term is worth as evidence for one server: the
// IDF of the term over servers in units of a term exactly one server has.
type groupWeight struct {
	group int32
	ev    float32
}

// docEntry is one occurrence of a term in a field of a tool.
type docEntry struct {
	term  int32
	field uint8
}

// stemCache memoises the stemmer over one index build: tool text repeats
// its words, and a map lookup is cheaper than stemming again.
type stemCache map[string]string

func (c stemCache) stem(w string) string {
	if s, ok := c[w]; ok {
		return s
	}
	s := stem(w)
	c[w] = s
	return s
}

// analyseTool emits every (term, field) occurrence of a tool's text,
// stemming with stem.
func analyseTool(t *registry.Tool, stem func(string) string, emit func(term string, field int)) {
	server, tool, ok := toolname.SplitMCP(t.Name)
	if !ok {
		tool = t.Name
	}
	pieces(tool, func(p piece) {
		if p.cjk {
			bigrams(p.text, func(b string) { emit(b, fName) })
			return
		}
		w := strings.ToLower(p.text)
		if len(w) < 2 {
			return
		}
		if p.compound {
			emit(stem(w), fNameJoined)
			return
		}
		if isStop(w) {
			return // a query never searches it, so it cannot be covered
		}
		emit(stem(w), fName)
		if s := stem(w); s != w {
			emit(exactPrefix+w, fNameExact)
		}
	})
	if g := groupTerm(server); ok && g != "" {
		emit(g, fGroup)
	}
	add := func(f int, s string) { termsWith(s, stem, func(term string, _ bool) { emit(term, f) }) }
	for _, h := range t.SearchHints {
		add(fHints, h)
	}
	add(fDesc, t.Description)
	walkParams(t, func(name, desc string) {
		add(fParamName, name)
		add(fParamDesc, desc)
	})
}

// rawPosting is a term's frequency in each field of one tool, before IDF.
type rawPosting struct {
	doc int32
	tf  [nFields]float32
}

// Index builds the BM25F index over tools.
func (r *BM25F) Index(ctx context.Context, tools []*registry.Tool) (search.Index, error) {
	k1, b := r.K1, r.B
	if k1 == 0 {
		k1 = 1.2
	}
	if b == 0 {
		b = fieldSpecs[fDesc].b
	}
	specs := fieldSpecs
	specs[fDesc].b = b
	vocab := r.Vocabulary
	if vocab == nil {
		vocab = DefaultVocabulary()
	}
	sorted := make([]*registry.Tool, len(tools))
	copy(sorted, tools)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	n := len(sorted)
	ix := &bm25Index{
		vocab: vocab, k1: k1, specs: specs, tools: sorted, names: make([]string, n), group: make([]int32, n),
		groups: map[string]int32{}, docLen: make([][nFields]float32, n), nameTot: make([]float32, n),
		dict: map[string]int32{}, disc: map[discKey]float32{},
	}
	raw, groupSize, err := ix.analyse(ctx, sorted)
	if err != nil {
		return nil, err
	}
	ix.score(raw, groupSize)
	ix.pool.New = func() any { return newScratch(n, ix.ngroups) }
	return ix, nil
}

// analyse reads the tools into ix: names, server groups, field lengths and
// their averages, and the term dictionary; it returns each term's raw
// postings and each group's size.
func (ix *bm25Index) analyse(ctx context.Context, sorted []*registry.Tool) ([][]rawPosting, []int, error) {
	n := len(sorted)
	var raw [][]rawPosting
	var entries []docEntry
	cache := stemCache{}
	var groupSize []int
	for i, t := range sorted {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		ix.names[i] = t.Name
		ix.group[i] = -1
		if server, _, ok := toolname.SplitMCP(t.Name); ok {
			g, seen := ix.groups[server]
			if !seen {
				g = int32(len(ix.groups))
				ix.groups[server] = g
				groupSize = append(groupSize, 0)
			}
			ix.group[i] = g
			groupSize[g]++
		}
		entries = entries[:0]
		analyseTool(t, cache.stem, func(term string, f int) {
			id, ok := ix.dict[term]
			if !ok {
				id = int32(len(raw))
				ix.dict[term] = id
				raw = append(raw, nil)
			}
			entries = append(entries, docEntry{id, uint8(f)})
			ix.docLen[i][f]++
		})
		slices.SortFunc(entries, func(a, b docEntry) int { return int(a.term - b.term) })
		for k := 0; k < len(entries); {
			id := entries[k].term
			rp := rawPosting{doc: int32(i)}
			for ; k < len(entries) && entries[k].term == id; k++ {
				rp.tf[entries[k].field]++
			}
			raw[id] = append(raw[id], rp)
		}
		for f := range ix.avg {
			ix.avg[f] += float64(ix.docLen[i][f])
		}
	}
	for f := range ix.avg {
		if n > 0 {
			ix.avg[f] /= float64(n)
		}
		if ix.avg[f] == 0 {
			ix.avg[f] = 1
		}
	}
	return raw, groupSize, nil
}

// score computes each term's IDF per field, the per-server boilerplate
// discounts, and the scored postings from raw.
func (ix *bm25Index) score(raw [][]rawPosting, groupSize []int) {
	n := len(ix.tools)
	ix.gterms = map[int32][]groupWeight{}
	ix.ngroups = len(groupSize)
	ix.serverStems = map[string]int32{}
	ix.serverNames = map[int32]bool{}
	for server := range ix.groups {
		g := groupTerm(server)
		id, ok := ix.dict[g]
		if !ok {
			continue
		}
		ix.serverNames[id] = true
		k := stem(g[len(groupPrefix):])
		if old, seen := ix.serverStems[k]; !seen || id < old {
			ix.serverStems[k] = id
		}
	}
	defer ix.weighGroupTerms()
	// Document frequencies per field, IDF per field; per-server document
	// frequencies for the boilerplate discount.
	ix.idf = make([][nFields]float32, len(raw))
	ix.postings = make([][]posting, len(raw))
	perGroup := make([][nFields]int32, len(groupSize))
	termDisc := make([][nFields]float32, len(groupSize))
	for g := range termDisc {
		termDisc[g] = noDiscount
	}
	var touchedGroups []int32
	for id, rps := range raw {
		var df [nFields]int
		for _, rp := range rps {
			g := ix.group[rp.doc]
			for f, c := range rp.tf {
				if c > 0 {
					df[f]++
					if g >= 0 && f != fName && f != fNameJoined && f != fNameExact && f != fGroup {
						if perGroup[g] == [nFields]int32{} {
							touchedGroups = append(touchedGroups, g)
						}
						perGroup[g][f]++
					}
				}
			}
		}
		for f := range df {
			if df[f] > 0 {
				d := float64(df[f])
				ix.idf[id][f] = float32(math.Log(1 + (float64(n)-d+0.5)/(d+0.5)))
			}
		}
		slices.Sort(touchedGroups)
		for _, g := range touchedGroups {
			if groupSize[g] >= groupTermMin && max(perGroup[g][fDesc], perGroup[g][fHints])*2 > int32(groupSize[g]) {
				ix.gterms[int32(id)] = append(ix.gterms[int32(id)], groupWeight{group: g})
			}
		}
		for _, rp := range rps {
			// The server's own term: evidence for the server that has it.
			if g := ix.group[rp.doc]; rp.tf[fGroup] > 0 && g >= 0 && !slices.ContainsFunc(ix.gterms[int32(id)], func(w groupWeight) bool { return w.group == g }) {
				ix.gterms[int32(id)] = append(ix.gterms[int32(id)], groupWeight{group: g})
			}
		}
		for _, g := range touchedGroups {
			size := float64(groupSize[g])
			for f, c := range perGroup[g] {
				if share := float64(c) / size; size >= boilerplateMin && share > boilerplateShare {
					d := float32((1 - share) / (1 - boilerplateShare))
					ix.disc[discKey{g, int32(id), uint8(f)}] = d
					termDisc[g][f] = d
				}
			}
		}
		ps := make([]posting, len(rps))
		for k, rp := range rps {
			var disc *[nFields]float32
			if g := ix.group[rp.doc]; g >= 0 {
				disc = &termDisc[g]
			}
			ps[k] = ix.scorePosting(int32(id), rp, disc)
		}
		for _, g := range touchedGroups {
			perGroup[g] = [nFields]int32{}
			termDisc[g] = noDiscount
		}
		touchedGroups = touchedGroups[:0]
		ix.postings[id] = ps
	}
}

// groupTermMin is the smallest server whose tools' common words are
// evidence for it: in a server of one or two tools, a word "most of its
// tools" share is just a word of one tool. A server's own name counts at
// any size.
const groupTermMin = 3

// weighGroupTerms sets the weight of each term's server evidence: its IDF
// over servers, log(1 + (G - g + 0.5)/(g + 0.5)) for a term g of the G
// servers share, in units of that of a term exactly one server has — 1
// for a term of one server, whether the catalog holds one server or fifty.
func (ix *bm25Index) weighGroupTerms() {
	G := float64(ix.ngroups)
	unit := math.Log(1 + (G-0.5)/1.5)
	for id, ws := range ix.gterms {
		g := float64(len(ws))
		ev := float32(math.Log(1+(G-g+0.5)/(g+0.5)) / unit)
		for k := range ws {
			ws[k].ev = ev
		}
		ix.gterms[id] = ws
	}
}

// scorePosting scores one raw posting of term id: its impact is the sum over
// every field but the name, whose part is kept apart as nameIDF and added
// to the tool's name total.
func (ix *bm25Index) scorePosting(id int32, rp rawPosting, disc *[nFields]float32) posting {
	var contrib [nFields]float64
	ix.fieldScores(id, rp.doc, rp.tf, disc, &contrib)
	sum := 0.0
	for f := fNameJoined; f < nFields; f++ {
		sum += contrib[f]
	}
	ix.nameTot[rp.doc] += float32(contrib[fName])
	said := false
	for _, f := range []int{fName, fNameJoined, fDesc, fHints} {
		said = said || rp.tf[f] > 0 && (disc == nil || disc[f] >= 1)
	}
	return posting{doc: rp.doc, impact: float32(sum), nameIDF: float32(contrib[fName]), said: said}
}

// noDiscount is the boilerplate factor of a term no server repeats.
var noDiscount = func() (d [nFields]float32) {
	for f := range d {
		d[f] = 1
	}
	return d
}()

// discount returns the boilerplate factors of term in doc's server.
func (ix *bm25Index) discount(term, doc int32) *[nFields]float32 {
	g := ix.group[doc]
	if g < 0 {
		return nil
	}
	d := noDiscount
	for f := range d {
		if v, ok := ix.disc[discKey{g, term, uint8(f)}]; ok {
			d[f] = v
		}
	}
	return &d
}

// fieldScores fills out with a term's contribution through each field of
// one tool, given its frequencies there and the boilerplate factors of
// its server (nil: none). For fName it is the term's IDF in names, the
// unit of name coverage. The other fields add up field weight × IDF in
// that field × length-normalised frequency × the factor, and the sum is
// saturated once, against the largest of those IDFs; each field keeps its
// share of the result.
func (ix *bm25Index) fieldScores(term, doc int32, tf [nFields]float32, disc *[nFields]float32, out *[nFields]float64) {
	k1 := ix.k1
	total, idfMax := 0.0, 0.0
	for f := range tf {
		out[f] = 0
		if tf[f] == 0 {
			continue
		}
		if f == fName {
			out[f] = float64(ix.idf[term][f])
			continue
		}
		spec := ix.specs[f]
		norm := 1 - spec.b + spec.b*float64(ix.docLen[doc][f])/ix.avg[f]
		idf := float64(ix.idf[term][f])
		s := spec.weight * idf * float64(tf[f]) / norm
		if disc != nil {
			s *= float64(disc[f])
		}
		out[f] = s
		total += s
		idfMax = max(idfMax, idf)
	}
	if total == 0 {
		return
	}
	// One saturation for the term over all its fields (BM25F): however
	// many fields repeat a word, it earns at most (k1+1) × its IDF.
	scale := (k1 + 1) / (k1 + total/idfMax)
	for f := range out {
		if f != fName {
			out[f] *= scale
		}
	}
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
			desc = p.Description + enumText(p)
		}
		fn(n, desc)
		walkSchema(p, depth+1, nil, fn)
	}
	walkSchema(s.Items, depth+1, nil, fn)
}

// enumText returns the string values a property accepts (its enum, or its
// items' enum), space-separated with a leading space: "open closed all"
// says what a "state" parameter can select.
func enumText(p *jsonschema.Schema) string {
	var b strings.Builder
	add := func(vs []any) {
		for _, v := range vs {
			if s, ok := v.(string); ok {
				b.WriteByte(' ')
				b.WriteString(s)
			}
		}
	}
	add(p.Enum)
	return b.String()
}

// scratch is one query's per-tool accumulators, pooled. Three levels: an
// alternative of one query word (its literal form, or one expansion), the
// word (the best of its alternatives), the whole query (the sum of words).
type scratch struct {
	alt   []acc    // per tool: the current alternative's score and covered mass
	word  []acc    // per tool: the current word's (its best alternative)
	doc   []docAcc // per tool: the whole query's
	wgen  uint32   // stamps of the current word and alternative
	agen  uint32
	altT  []int32
	wT    []int32
	touch []int32
	// Per server: the current word's server evidence (gw), the query's
	// (gsum), and the servers either holds.
	gw, gsum   []float32
	gwT, gsumT []int32
}

// acc is one tool's score and covered query mass at one level, with the
// stamp of the word or alternative they belong to. The fields a posting
// updates sit together: one cache line per tool, not one per array.
type acc struct {
	s, c float32
	e    float32 // covered mass, for [search.Fit.Group]
	gen  uint32
}

// docAcc is one tool's accumulators for the whole query.
type docAcc struct {
	s, n, cov float32 // score, name IDF matched, covered mass
	ev        float32 // evidence the tool adds to its server's ([groupEvidence])
	seen      bool
	mask      uint64 // required words matched
}

func newScratch(n, groups int) *scratch {
	return &scratch{alt: make([]acc, n), word: make([]acc, n), doc: make([]docAcc, n), gw: make([]float32, groups), gsum: make([]float32, groups)}
}

// nameTerm is a term of the query and the strongest weight it has there.
type nameTerm struct {
	id int32
	w  float32
}

// nameTerms returns every term of words with its strongest weight, at most 1.
func nameTerms(words []qword) []nameTerm {
	var out []nameTerm
	for _, w := range words {
		for _, a := range w.alts {
			for _, id := range a.ids {
				i := slices.IndexFunc(out, func(nt nameTerm) bool { return nt.id == id })
				if i < 0 {
					out = append(out, nameTerm{id, min(a.w, 1)})
				} else {
					out[i].w = max(out[i].w, min(a.w, 1))
				}
			}
		}
	}
	return out
}

// Search ranks the indexed tools for queries. Scoring walks the postings of
// the query's terms only; the per-tool arrays are pooled, so a query
// allocates in proportion to its own length and limit, not to the catalog.
//
// A query word contributes the best of its alternatives (the word itself,
// each expansion), so however many synonyms it has, it weighs at most what
// its best match does, and an expansion (weighted below 1) never counts as
// much as the word would. A tool's name contributes weightName × m² / t,
// where m is the IDF of the name's words the query matched and t that of
// all of them: covering the whole name counts in full, one word of a long
// name little.
func (ix *bm25Index) Search(ctx context.Context, queries []string, limit int) ([]search.Hit, error) {
	if limit <= 0 || len(ix.names) == 0 {
		return nil, nil
	}
	words, need := ix.parseQuery(queries)
	if len(words) == 0 {
		return nil, nil
	}
	mass, massAll := ix.queryMass(words)
	sc := ix.pool.Get().(*scratch)
	defer ix.release(sc)
	nameW := float32(fieldSpecs[fName].weight)
	for _, w := range words {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ix.addWord(sc, w, nameW)
	}
	// The name: each of its words counts once, at the strongest weight any
	// query word reached it with.
	for _, nt := range nameTerms(words) {
		for _, p := range ix.postings[nt.id] {
			if p.nameIDF > 0 {
				sc.doc[p.doc].n += nt.w * p.nameIDF
			}
		}
	}
	inv := float32(0)
	if mass > 0 {
		inv = 1 / mass
	}
	for _, d := range sc.touch {
		z := &sc.doc[d]
		if t := ix.nameTot[d]; t > 0 && z.n > 0 {
			m := min(z.n, t)
			z.s += nameW * m * m / t
		}
		if mass > 0 {
			z.s *= 1 - coverageShare + coverageShare*min(z.cov*inv, 1)
		}
	}
	return ix.topHits(sc, need, limit, massAll), nil
}

// queryMass is the query's total weight: mass over the terms the index
// holds, and massAll, which also counts a word the index lacks or holds
// only through weak alternatives at the IDF of an unseen term.
func (ix *bm25Index) queryMass(words []qword) (mass, massAll float32) {
	for _, w := range words {
		wm, strong := float32(0), float32(0)
		for _, a := range w.alts {
			wm = max(wm, a.mass)
			if len(a.ids) > 0 {
				strong = max(strong, a.w)
			}
		}
		mass += wm
		if len(w.alts) > 0 && strong < weakAlt*w.alts[0].w {
			wm = max(wm, w.alts[0].w*ix.unseenIDF())
		}
		massAll += wm
	}
	return mass, massAll
}

// release clears sc and puts it back in the pool.
func (ix *bm25Index) release(sc *scratch) {
	// Every accumulator a query touched is cleared, seen included: a
	// query cancelled between words returns before the final loop,
	// and a stale mark would hide the tool from every later query on
	// this scratch.
	for _, d := range sc.touch {
		sc.doc[d] = docAcc{}
	}
	sc.touch = sc.touch[:0]
	for _, g := range sc.gwT {
		sc.gw[g] = 0
	}
	for _, g := range sc.gsumT {
		sc.gsum[g] = 0
	}
	sc.gwT, sc.gsumT = sc.gwT[:0], sc.gsumT[:0]
	ix.pool.Put(sc)
}

// addWord adds one query word's best-alternative scores and coverage to
// the accumulators of the tools its terms hit.
func (ix *bm25Index) addWord(sc *scratch, w qword, nameW float32) {
	sc.wgen++
	if sc.wgen == 0 { // wrapped: a stamp from 2^32 words ago would match
		for k := range sc.word {
			sc.word[k].gen = 0
		}
		sc.wgen = 1
	}
	for _, a := range w.alts {
		sc.agen++
		if sc.agen == 0 {
			for k := range sc.alt {
				sc.alt[k].gen = 0
			}
			sc.agen = 1
		}
		if len(a.ids) == 1 {
			// One term: its postings name each tool once, so the
			// alternative's sums are the postings themselves.
			for _, p := range ix.postings[a.ids[0]] {
				y := &sc.word[p.doc]
				if y.gen != sc.wgen {
					*y = acc{gen: sc.wgen}
					sc.wT = append(sc.wT, p.doc)
				}
				y.s = max(y.s, a.w*p.impact)
				c := min(a.mass, a.w*(p.impact+nameW*p.nameIDF))
				y.c = max(y.c, c)
				y.e = max(y.e, c)
				if p.said {
					y.e = max(y.e, a.mass)
				}
			}
			continue
		}
		for _, id := range a.ids {
			for _, p := range ix.postings[id] {
				x := &sc.alt[p.doc]
				if x.gen != sc.agen {
					*x = acc{gen: sc.agen}
					sc.altT = append(sc.altT, p.doc)
				}
				x.s += a.w * p.impact
				x.c += a.w * (p.impact + nameW*p.nameIDF)
			}
		}
		for _, d := range sc.altT {
			x, y := &sc.alt[d], &sc.word[d]
			if y.gen != sc.wgen {
				*y = acc{gen: sc.wgen}
				sc.wT = append(sc.wT, d)
			}
			y.s = max(y.s, x.s)
			c := min(a.mass, x.c)
			y.c = max(y.c, c)
			y.e = max(y.e, c)
		}
		sc.altT = sc.altT[:0]
	}
	ix.groupWord(sc, w)
	unit := ix.uniqueIDF()
	for _, d := range sc.wT {
		y, z := &sc.word[d], &sc.doc[d]
		if !z.seen {
			z.seen = true
			sc.touch = append(sc.touch, d)
		}
		z.s += y.s
		z.cov += y.c
		z.mask |= w.req
		gv := float32(0)
		if g := ix.group[d]; g >= 0 {
			gv = sc.gw[g]
		}
		z.ev += max(0, y.e/unit-gv)
	}
	sc.wT = sc.wT[:0]
	for _, g := range sc.gwT {
		if sc.gsum[g] == 0 {
			sc.gsumT = append(sc.gsumT, g)
		}
		sc.gsum[g] += sc.gw[g]
		sc.gw[g] = 0
	}
	sc.gwT = sc.gwT[:0]
}

// groupWord sets sc.gw to one query word's evidence for each server: the
// best of its alternatives' weights for a server ([serverWeight], at most
// 1) × the weight of a term of it the server's tools share
// ([groupEvidence]).
func (ix *bm25Index) groupWord(sc *scratch, w qword) {
	if len(ix.gterms) == 0 {
		return
	}
	for _, a := range w.alts {
		aw := serverWeight(a, w.alts[0].w)
		for _, id := range a.ids {
			for _, gt := range ix.gterms[id] {
				if sc.gw[gt.group] == 0 {
					sc.gwT = append(sc.gwT, gt.group)
				}
				sc.gw[gt.group] = max(sc.gw[gt.group], aw*gt.ev)
			}
		}
	}
}

// topHits returns the best limit tools sc scored that have every required
// word of need, with their fit.
func (ix *bm25Index) topHits(sc *scratch, need uint64, limit int, massAll float32) []search.Hit {
	// Keep the best limit: score descending, then doc id (= name) ascending.
	top := make([]int32, 0, limit+1)
	better := func(a, b int32) bool {
		if sa, sb := sc.doc[a].s, sc.doc[b].s; sa != sb {
			return sa > sb
		}
		return a < b
	}
	for _, d := range sc.touch {
		if sc.doc[d].mask&need != need || sc.doc[d].s <= 0 && !ix.groupMatched(sc, d) {
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
	hits := make([]search.Hit, len(top))
	for i, d := range top {
		z := &sc.doc[d]
		hits[i] = search.Hit{Name: ix.names[d], Score: float64(z.s)}
		hits[i].Fit = search.Fit{Judged: true, Evidence: float64(z.cov / ix.uniqueIDF())}
		if t := ix.nameTot[d]; t > 0 {
			hits[i].Fit.Name = float64(min(z.n/t, 1))
		}
		if massAll > 0 {
			hits[i].Fit.Coverage = float64(min(z.cov/massAll, 1))
		}
		hits[i].Fit.Group = float64(z.ev)
		if g := ix.group[d]; g >= 0 {
			hits[i].Fit.Group += float64(sc.gsum[g])
		}
	}
	return hits
}

// groupMatched reports whether the query's words are evidence for doc's
// server: a tool whose server the request names or whose shared words it
// uses is a candidate even when nothing tells it from its siblings.
func (ix *bm25Index) groupMatched(sc *scratch, d int32) bool {
	g := ix.group[d]
	return g >= 0 && sc.gsum[g] > 0
}

// weakAlt: a word the catalog knows only through alternatives weighing less
// than this share of the word (WordNet's rarer senses, GloVe neighbours,
// shared Chinese characters) counts, for [search.Hit.Fit], as a word it lacks.
const weakAlt = 0.5

// uniqueIDF is the IDF of a term exactly one tool has: the unit of
// [search.Fit.Evidence].
func (ix *bm25Index) uniqueIDF() float32 {
	n := float64(len(ix.names))
	return float32(math.Log(1 + (n-0.5)/1.5))
}

// unseenIDF is the IDF of a term no tool has: the mass of a query word the
// catalog lacks, which no tool covers.
func (ix *bm25Index) unseenIDF() float32 {
	n := float64(len(ix.names))
	return float32(math.Log(1 + (n+0.5)/0.5))
}

// coverageShare is the share of a tool's score that depends on how much of
// the query it covers: the score is multiplied by 1 - coverageShare +
// coverageShare × c, c being the covered share of the query's mass. A
// query word's mass is its best alternative's weight × the largest IDF of
// its terms; a tool covers of it what that alternative earned in the tool
// (name included), up to the mass, so a word found in the description
// covers it fully and one found only in a parameter's description in part.
// A tool that matches more of the query's distinct words beats one that
// matches one word strongly (several words of "files changed in pull
// request" over "PR" alone). Set on the tune halves of the query sets as a
// whole: 0.5 raised the tune MRR of dev, BFCL and Seal-Tools, cost
// MetaTool's a little (its multi-intent questions favour tools with long
// descriptions that touch both intents), and kept R@5.
const coverageShare = 0.5

// serverNameEvidence returns, for each server a request names, its
// evidence counted from server names alone ([search.Fit.Group]'s unit):
// the name written, inflected, or reached through what a word means (a
// synonym, a derivation, its definition); with meaningOnly, only through
// what a word means. A request that names a server
// is about it even when its tools score nothing and other servers' tools,
// matching incidental words, fill the first hits; a word a server's tools
// merely share ("name", "allowed") does not name it.
func (ix *bm25Index) serverNameEvidence(queries []string, meaningOnly bool) map[int32]float32 {
	if len(ix.serverNames) == 0 {
		return nil
	}
	words, _ := ix.parseQuery(queries)
	var sum map[int32]float32
	for _, w := range words {
		var best map[int32]float32
		for _, a := range w.alts {
			if meaningOnly && !a.meaning {
				continue
			}
			for _, id := range a.ids {
				if !ix.serverNames[id] {
					continue
				}
				for _, gt := range ix.gterms[id] {
					if best == nil {
						best = map[int32]float32{}
					}
					best[gt.group] = max(best[gt.group], serverWeight(a, w.alts[0].w)*gt.ev)
				}
			}
		}
		for g, v := range best {
			if sum == nil {
				sum = map[int32]float32{}
			}
			sum[g] += v
		}
	}
	return sum
}

// serverOf returns the server of tool name, -1 for none or an unknown
// name.
func (ix *bm25Index) serverOf(name string) int32 {
	d, ok := slices.BinarySearch(ix.names, name)
	if !ok {
		return -1
	}
	return ix.group[d]
}

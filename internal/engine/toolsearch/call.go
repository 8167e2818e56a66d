package toolsearch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// maxArgsBytes bounds the raw arguments of one call; anything larger is
// rejected before decoding.
const maxArgsBytes = 1 << 20

// goodCall is appended to validation messages: what a good call looks like.
const goodCall = `Call tool_search with exactly one of: {"queries": ["keywords for the capability you need"]} to search, or {"tool_names": ["exact_tool_name"]} to load tools listed in <available_deferred_tools>.`

// args is a decoded tool_search call.
type args struct {
	queries  []string
	names    []string
	limit    int
	hasLimit bool
}

func invalid(format string, a ...any) registry.Result {
	return registry.Result{Text: "Invalid tool_search call: " + fmt.Sprintf(format, a...) + "\n" + goodCall, IsError: true}
}

// parseArgs decodes and validates the raw arguments. Every problem comes
// back as a model-facing result.
func (s *Searcher) parseArgs(raw json.RawMessage) (args, *registry.Result) {
	fail := func(r registry.Result) (args, *registry.Result) { return args{}, &r }
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return fail(invalid("the arguments are empty."))
	case len(raw) > maxArgsBytes:
		return fail(invalid("the arguments are %d bytes; keep them under %d.", len(raw), maxArgsBytes))
	case !utf8.Valid(raw):
		return fail(invalid("the arguments are not valid UTF-8 text."))
	case raw[0] != '{' || !json.Valid(raw):
		return fail(invalid("the arguments must be one JSON object."))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fail(invalid("the arguments must be one JSON object."))
	}
	var a args
	var unknown []string
	for k := range m {
		switch k {
		case "queries", "tool_names", "limit":
		default:
			unknown = append(unknown, strconv.Quote(clip(k, 40)))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fail(invalid("unknown parameter %s; the parameters are \"queries\", \"tool_names\" and \"limit\".", strings.Join(unknown, ", ")))
	}
	qv, hasQ := m["queries"]
	nv, hasN := m["tool_names"]
	hasQ = hasQ && !isNull(qv)
	hasN = hasN && !isNull(nv)
	switch {
	case hasQ && hasN:
		return fail(invalid("give either \"queries\" or \"tool_names\", not both: make two calls if you need both."))
	case !hasQ && !hasN:
		return fail(invalid("give \"queries\" (to search) or \"tool_names\" (to load exact names)."))
	}
	if hasQ {
		qs, msg := stringList(qv, "queries")
		if msg != "" {
			return fail(invalid("%s", msg))
		}
		if len(qs) > s.opts.MaxQueries {
			return fail(invalid("\"queries\" has %d strings; give at most %d short ones.", len(qs), s.opts.MaxQueries))
		}
		for i, q := range qs {
			if strings.TrimSpace(q) == "" {
				return fail(invalid("queries[%d] is empty: describe the capability you need, e.g. \"create pull request\".", i))
			}
			if n := utf8.RuneCountInString(q); n > s.opts.MaxQueryRunes {
				return fail(invalid("queries[%d] is %d characters long; use a few keywords (at most %d characters).", i, n, s.opts.MaxQueryRunes))
			}
		}
		a.queries = qs
	}
	if hasN {
		ns, msg := stringList(nv, "tool_names")
		if msg != "" {
			return fail(invalid("%s", msg))
		}
		var out []string
		for _, n := range ns {
			out = appendNames(out, n)
		}
		if len(out) == 0 {
			return fail(invalid("\"tool_names\" is empty: list the exact names to load, e.g. {\"tool_names\": [\"mcp__github__create_issue\"]}."))
		}
		if len(out) > s.opts.MaxNames {
			return fail(invalid("\"tool_names\" has %d names; load at most %d per call (only what you are about to use).", len(out), s.opts.MaxNames))
		}
		a.names = out
	}
	if lv, ok := m["limit"]; ok && !isNull(lv) {
		var f float64
		if json.Unmarshal(lv, &f) != nil || f != float64(int(f)) || f < 1 {
			return fail(invalid("\"limit\" must be a whole number from 1 to %d.", s.opts.ResultLimit))
		}
		a.limit, a.hasLimit = min(int(f), s.opts.ResultLimit), true
	}
	return a, nil
}

// appendNames appends the names of a comma-separated list, trimmed, to
// dst; empty entries are dropped.
func appendNames(dst []string, list string) []string {
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			dst = append(dst, n)
		}
	}
	return dst
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// stringList decodes an array of strings, or one string, naming the
// parameter in the message when it is neither.
func stringList(v json.RawMessage, name string) ([]string, string) {
	var one string
	if json.Unmarshal(v, &one) == nil {
		return []string{one}, ""
	}
	var list []string
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, fmt.Sprintf("%q must be an array of strings, got %s.", name, clip(string(v), 60))
	}
	if len(list) == 0 {
		return nil, fmt.Sprintf("%q is an empty array.", name)
	}
	return list, ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// languageScript maps a language code to the script its keywords are
// written in.
func languageScript(code string) (string, bool) {
	switch strings.ToLower(code) {
	case "zh", "zh-cn", "zh-tw", "ja", "ko":
		return "cjk", true
	case "en", "fr", "de", "es", "it", "pt", "nl", "sv", "da", "no", "fi", "pl", "cs", "tr", "id", "vi":
		return "latin", true
	}
	return "", false
}

var languageExample = map[string]string{
	"zh": "截图", "zh-cn": "截图", "zh-tw": "截圖", "ja": "スクリーンショット", "ko": "스크린샷",
}

var languageName = map[string]string{"zh": "Chinese", "zh-cn": "Chinese", "zh-tw": "Chinese", "ja": "Japanese", "ko": "Korean", "en": "English"}

// checkLanguages enforces Options.Languages on a fuzzy search.
func (s *Searcher) checkLanguages(queries []string) *registry.Result {
	if len(s.opts.Languages) == 0 {
		return nil
	}
	all := strings.Join(queries, " ")
	var missing, names, examples []string
	for _, l := range s.opts.Languages {
		script, _ := languageScript(l)
		name := languageName[strings.ToLower(l)]
		if name == "" {
			name = l
		}
		names = append(names, name)
		ex := languageExample[strings.ToLower(l)]
		if ex == "" {
			ex = "screenshot"
		}
		examples = append(examples, strconv.Quote(ex))
		if (script == "cjk" && !hasCJK(all)) || (script == "latin" && !hasLatin(all)) {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	r := registry.Result{IsError: true, Text: fmt.Sprintf(
		"Invalid tool_search call: this harness needs keywords in each of %s; %s missing. Give the same keywords in every language, e.g. {\"queries\": [%s]}.",
		strings.Join(names, " and "), strings.Join(missing, " and ")+plural(len(missing), " is", " are"), strings.Join(examples, ", "))}
	return &r
}

// Call answers one tool_search call. Errors are model-facing results; Call
// never panics on any input and never returns a Go error. It is [Searcher.Load]
// for a caller that keeps no loaded set.
func (s *Searcher) Call(ctx context.Context, args json.RawMessage, sc Scope) registry.Result {
	res, _ := s.Load(ctx, args, sc)
	return res
}

// Load answers one tool_search call, as [Searcher.Call] does, and returns
// the names whose full schemas the answer carries: what the call loaded.
// It writes nothing of the caller's: the session that keeps the loaded set
// adds them (issue 42: the set has one writer).
func (s *Searcher) Load(ctx context.Context, args json.RawMessage, sc Scope) (registry.Result, []string) {
	res, w := s.call(ctx, args, sc)
	if w == nil {
		return res, nil
	}
	return res, w.loaded
}

func (s *Searcher) call(ctx context.Context, args json.RawMessage, sc Scope) (registry.Result, *writer) {
	a, bad := s.parseArgs(args)
	if bad != nil {
		return *bad, nil
	}
	v, err := s.view(ctx, sc)
	if err != nil {
		return registry.Result{Text: "tool_search failed: " + err.Error() + ". Try again.", IsError: true}, nil
	}
	var exact, fuzzy []string
	exact = a.names
	for _, q := range a.queries {
		if rest, ok := cutSelect(q); ok {
			exact = appendNames(exact, rest)
			continue
		}
		fuzzy = append(fuzzy, q)
	}
	if len(a.queries) > 0 && len(exact) > s.opts.MaxNames {
		return invalid("select: lists %d names; load at most %d per call.", len(exact), s.opts.MaxNames), nil
	}
	if len(a.queries) > 0 && len(exact) == 0 && len(fuzzy) == 0 {
		// "select:" with nothing after it: the word may have been meant
		// literally, so it is searched as text before the call is refused.
		hits, _, err := rank(ctx, v.index, a.queries, 1)
		if err != nil || len(hits) == 0 {
			return invalid("select: needs names after it, e.g. \"select:mcp__github__create_issue\"."), nil
		}
		fuzzy = a.queries
	}
	if len(fuzzy) > 0 {
		if r := s.checkLanguages(fuzzy); r != nil {
			return *r, nil
		}
	}
	limit := s.opts.MaxResults
	if a.hasLimit {
		limit = a.limit
	}
	w := &writer{s: s, sc: sc, cap: s.opts.ResponseCap}
	if len(exact) > 0 {
		if err := s.exact(ctx, w, v, exact, limit); err != nil {
			return registry.Result{Text: "tool_search was interrupted: " + err.Error(), IsError: true}, nil
		}
	}
	if len(fuzzy) > 0 {
		if w.b.Len() > 0 {
			w.b.WriteByte('\n')
		}
		if err := s.fuzzy(ctx, w, v, fuzzy, limit, "", !a.hasLimit); err != nil {
			return registry.Result{Text: "tool_search was interrupted: " + err.Error(), IsError: true}, nil
		}
	}
	return registry.Result{Text: strings.TrimRight(w.b.String(), "\n"), IsError: w.unsure && len(fuzzy) == 0}, w
}

// cutSelect recognises "select:A,B", the exact-load form Claude Code's
// models write in queries.
func cutSelect(q string) (string, bool) {
	q = strings.TrimSpace(q)
	if len(q) >= 7 && strings.EqualFold(q[:7], "select:") {
		return q[7:], true
	}
	return "", false
}

// Where a name given to load is, for [Searcher.exact].
const (
	nowhere  = iota // not a full name the session knows
	loadable        // a searchable tool: deferred, or announced
	gone            // removed during the session
	resident        // in the model's tool list already
)

// place says where name is for this call: searchable (with its tool),
// removed, or a visible tool of the plan that is not deferred.
func (s *Searcher) place(v view, sc *Scope, name string) (*registry.Tool, int) {
	if t, ok := v.lookup(name); ok {
		return t, loadable
	}
	if sc.removed(name) {
		return nil, gone
	}
	if _, ok := s.plan.Snapshot().Tool(name); ok && s.plan.State(name) != deferral.Hidden {
		return nil, resident
	}
	return nil, nowhere
}

// exact loads names. Names that are not deferred tools go down the ladder:
// a fuzzy search with the names as queries, then a plain miss.
func (s *Searcher) exact(ctx context.Context, w *writer, v view, names []string, limit int) error {
	var found []*registry.Tool
	var missing, residents, removed, unclear []string
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		t, where := s.place(v, &w.sc, n)
		if where == nowhere {
			switch c := s.candidates(n, w.sc.Announced); len(c) {
			case 0:
				missing = append(missing, n)
				continue
			case 1: // a short name: from here on, the full name
				if seen[c[0]] {
					continue
				}
				n = c[0]
				seen[n] = true
				t, where = s.place(v, &w.sc, n)
			default:
				unclear = append(unclear, ambiguous(n, c))
				continue
			}
		}
		switch where {
		case loadable:
			found = append(found, t)
		case gone:
			removed = append(removed, n)
		default: // a short name's tool is visible: resident if not searchable
			residents = append(residents, n)
		}
	}
	if len(found) > 0 {
		shapes := make([]Shape, len(found))
		for i := range shapes {
			shapes[i] = ShapeFull
		}
		w.hits(found, shapes, "")
	}
	for _, n := range residents {
		fmt.Fprintf(&w.b, "%s is not deferred: it is already in your tool list, call it directly.\n", n)
	}
	for _, n := range removed {
		fmt.Fprintf(&w.b, "%s was removed during this session: its server no longer offers it, so it cannot be loaded or called. Use another tool.\n", n)
	}
	for _, u := range unclear {
		w.b.WriteString(u)
		w.b.WriteByte('\n')
	}
	w.unsure = len(unclear) > 0 && len(found)+len(residents)+len(missing)+len(removed) == 0
	if len(missing) == 0 {
		return nil
	}
	if w.b.Len() > 0 {
		w.b.WriteByte('\n')
	}
	quoted := make([]string, len(missing))
	for i, n := range missing {
		quoted[i] = strconv.Quote(clip(n, 80))
	}
	note := fmt.Sprintf("No deferred tool is named %s (names are exact and case-sensitive).", strings.Join(quoted, ", "))
	return s.fuzzy(ctx, w, v, missing, limit, note, false)
}

// listDepth is how deep in the ranking the candidate list reads: the
// right tool is in the first 30 for 80–100% of queries on the sets of
// docs/search-quality.md, in the first 5 for 57–97%.
const listDepth = 30

// fuzzy ranks queries and writes the hits, or the miss sentence. With
// list set (the call gave no "limit") a compact list of further
// candidates, from the ranking below the hits, follows within
// Options.ListBudget.
func (s *Searcher) fuzzy(ctx context.Context, w *writer, v view, queries []string, limit int, note string, list bool) error {
	hits, _, relaxed, twins, deep, err := s.assembleDeep(ctx, v, queries, limit, true)
	if err != nil {
		return err
	}
	if relaxed != "" {
		note = strings.TrimSpace(note + " " + relaxed)
	}
	var tools []*registry.Tool
	var kept []search.Hit
	for _, h := range hits {
		if t, ok := v.lookup(h.Name); ok { // a Ranker cannot smuggle in names
			tools = append(tools, t)
			kept = append(kept, h)
		}
	}
	if note != "" {
		w.b.WriteString(note)
		w.b.WriteByte('\n')
	}
	if len(tools) == 0 {
		w.miss(queries)
		return nil
	}
	if Abstains(kept) {
		kept, tools = withNamedServers(v, queries, kept, tools, deep)
	}
	if NothingFits(kept) {
		w.abstain(queries, tools)
		return nil
	}
	shapes := s.presentation(kept)
	if Abstains(kept) {
		// Not sure: the best hit is not credible, but its evidence is above
		// the floor. Nothing is loaded; the candidates are listed, and the
		// model picks one by name or searches again.
		w.notSure = true
		tools = closestServerFirst(kept, tools)
		for i := range shapes {
			shapes[i] = ShapeShort
		}
		w.b.WriteString("Not sure which tool fits: none matches clearly. Load one of these by name, or search again with other words.\n")
	} else if note != "" {
		w.b.WriteString("Closest matches:\n")
	}
	var more []*registry.Tool
	// A search that is not sure lists its results only: deeper names would
	// not make it surer, and "search again" is the better advice.
	if list && s.opts.ListBudget > 0 && !w.notSure {
		for _, h := range deep {
			if slices.ContainsFunc(kept, func(k search.Hit) bool { return k.Name == h.Name }) {
				continue
			}
			if t, ok := v.lookup(h.Name); ok {
				more = append(more, t)
			}
		}
	}
	header := quoteList(queries)
	if w.notSure {
		header = ""
	}
	w.answer(tools, shapes, more, header)
	if len(twins) > 0 {
		fmt.Fprintf(&w.b, "Near twins, told apart by: %s.\n", strings.Join(twins, "; "))
	}
	return nil
}

// withNamedServers adds to the hits of a search that is not sure the
// deeper candidates (the ranking to listDepth) of the servers the request
// names with evidence at the floor of "nothing fits"
// ([bm25Index.serverNameEvidence]), as many as the hits at most: "forget
// my locker code" names the memory server through what "forget" means,
// while "code" fills the first hits with filesystem tools.
func withNamedServers(v view, queries []string, kept []search.Hit, tools []*registry.Tool, deep []search.Hit) ([]search.Hit, []*registry.Tool) {
	ix, ok := v.index.(*bm25Index)
	if !ok {
		return kept, tools
	}
	named := ix.serverNameEvidence(queries, false)
	if len(named) == 0 {
		return kept, tools
	}
	n := len(kept)
	for _, h := range deep {
		if len(kept) == 2*n {
			break // as many again: the list stays a list
		}
		if named[ix.serverOf(h.Name)] < nothingFitsEvidence || slices.ContainsFunc(kept, func(k search.Hit) bool { return k.Name == h.Name }) {
			continue
		}
		if t, ok := v.lookup(h.Name); ok {
			kept = append(kept, h)
			tools = append(tools, t)
		}
	}
	return kept, tools
}

// closestServerFirst orders the candidates of a search that is not sure
// by server: the tools of the server with the most evidence for the query
// ([search.Fit.Group], its best tool's) first, each server's tools in
// ranking order; servers tie by their best tool's rank. A tool without a
// server is a server of its own.
func closestServerFirst(hits []search.Hit, tools []*registry.Tool) []*registry.Tool {
	type server struct {
		name  string
		best  float64
		first int
	}
	var servers []server
	key := make([]string, len(tools))
	for i, t := range tools {
		k, _, ok := toolname.SplitMCP(t.Name)
		if !ok {
			k = "\x00" + t.Name
		}
		key[i] = k
		j := slices.IndexFunc(servers, func(s server) bool { return s.name == k })
		if j < 0 {
			servers = append(servers, server{k, hits[i].Fit.Group, i})
			continue
		}
		servers[j].best = max(servers[j].best, hits[i].Fit.Group)
	}
	slices.SortStableFunc(servers, func(a, b server) int {
		if a.best != b.best {
			return cmp.Compare(b.best, a.best)
		}
		return a.first - b.first
	})
	out := make([]*registry.Tool, 0, len(tools))
	for _, sv := range servers {
		for i, t := range tools {
			if key[i] == sv.name {
				out = append(out, t)
			}
		}
	}
	return out
}

// abstain writes the one line of a search that found no credible match:
// the closest tools by name only, nothing loaded, so the model can answer
// from its own knowledge or load one by name if it is what it needs.
func (w *writer) abstain(queries []string, tools []*registry.Tool) {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	w.listed = append(w.listed, names...)
	w.abstained = true
	fmt.Fprintf(&w.b, "No deferred tool fits %s (closest by name, not loaded: %s); answer without a tool, or load one with {\"tool_names\": [\"<name>\"]} if it is what you need.\n",
		quoteList(queries), strings.Join(names, ", "))
}

func quoteList(qs []string) string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = strconv.Quote(clip(collapse(q), 80))
	}
	return strings.Join(out, ", ")
}

// writer assembles one response within the cap.
type writer struct {
	s   *Searcher
	sc  Scope
	cap int
	b   strings.Builder
	// unsure: an exact load named only tools it could not tell apart
	// (ambiguous short names), so the call is an error to fix.
	unsure bool
	// listed are the tools written as candidate lines (or named as the
	// closest by an abstention), in order; abstained is set when a fuzzy
	// search said nothing fits or nothing matched.
	listed    []string
	abstained bool
	// notSure is set when a fuzzy search found candidates but none
	// credible, and listed them without loading any.
	notSure bool
	// candidates are the candidate lines written, the list's from
	// index firstMore on (for the evaluation's budget curve).
	candidates []string
	firstMore  int
	// loaded are the names whose full schemas the answer carries, in the
	// order written ([Searcher.Load]).
	loaded []string
}

// isLoaded reports whether name's schema is loaded: before the call (the
// scope's set) or earlier in this answer.
func (w *writer) isLoaded(name string) bool {
	return w.sc.Loaded != nil && w.sc.Loaded.Has(name) || slices.Contains(w.loaded, name)
}

// hits writes tools in their shapes (an exact load: no candidate list).
func (w *writer) hits(tools []*registry.Tool, shapes []Shape, queries string) {
	w.answer(tools, shapes, nil, queries)
}

// answer writes tools in their shapes, degrading a shape when the response
// would pass the cap, and marks full schemas loaded; then more, further
// candidates best first, one compact line each within ListBudget (the
// lines of tools count against it too, but are written whatever it says).
func (w *writer) answer(tools []*registry.Tool, shapes []Shape, more []*registry.Tool, queries string) {
	var blocks []string
	var lines, loadedNow, already []string
	// room is what is left of the cap, less slack for the fixed lines.
	room := w.cap - w.b.Len() - 400
	used, dropped, listed := 0, 0, 0
	fits := func(n int) bool { return used+n <= room }
	line := func(t *registry.Tool) bool {
		var b strings.Builder
		formatCandidate(&b, t)
		if !fits(b.Len()) {
			return false
		}
		lines = append(lines, b.String())
		w.candidates = append(w.candidates, b.String())
		w.listed = append(w.listed, t.Name)
		used += b.Len()
		listed += b.Len()
		return true
	}
	for i, t := range tools {
		shape := shapes[i]
		if shape == ShapeFull && w.isLoaded(t.Name) {
			already = append(already, t.Name)
			continue
		}
		if shape == ShapeFull {
			full := w.s.fullText(t)
			if fits(len(full)) {
				blocks = append(blocks, full)
				loadedNow = append(loadedNow, t.Name)
				used += len(full)
				continue
			}
		}
		if !line(t) {
			dropped++
		}
	}
	shown := len(tools) - dropped
	// Further candidates by name only: a name costs 3–8 tokens, a line with
	// its clause 12–25 (o200k_base, docs/search-quality.md), and the model
	// loads one by name either way.
	var moreNames []string
	w.firstMore = len(w.candidates)
	for _, t := range more {
		n := len(t.Name) + 2
		if listed+n > w.s.opts.ListBudget || !fits(n) {
			break
		}
		moreNames = append(moreNames, t.Name)
		w.candidates = append(w.candidates, t.Name+", ")
		w.listed = append(w.listed, t.Name)
		used += n
		listed += n
		shown++
	}
	if queries != "" {
		// The count, not the query again: the model wrote it, and a
		// request-length query costs 10–40 tokens to echo.
		fmt.Fprintf(&w.b, "%d %s.\n", shown, plural(shown, "match", "matches"))
	}
	if len(loadedNow) > 0 {
		fmt.Fprintf(&w.b, "Loaded %d %s; call %s with defer_execute {\"tool_name\": \"<name>\", \"params\": {...}}.\n\n",
			len(loadedNow), plural(len(loadedNow), "tool", "tools"), plural(len(loadedNow), "it", "them"))
		for _, b := range blocks {
			w.b.WriteString(b)
			w.b.WriteByte('\n')
		}
		w.loaded = append(w.loaded, loadedNow...)
	}
	for _, n := range already {
		fmt.Fprintf(&w.b, "%s is already loaded (its schema is earlier in this conversation): call it with defer_execute.\n", n)
	}
	if len(lines) > 0 {
		if len(loadedNow)+len(already) > 0 {
			w.b.WriteString("Other candidates (not loaded), best first:\n")
		} else {
			w.b.WriteString("Candidates (not loaded), best first:\n")
		}
		for _, l := range lines {
			w.b.WriteString(l)
		}
	}
	if len(moreNames) > 0 {
		w.b.WriteString("More candidates (not loaded): ")
		w.b.WriteString(strings.Join(moreNames, ", "))
		w.b.WriteByte('\n')
	}
	if dropped > 0 {
		fmt.Fprintf(&w.b, "(%d more %s not shown: the response is full; narrow the query.)\n", dropped, plural(dropped, "match", "matches"))
	}
	if len(lines)+len(moreNames) > 0 {
		w.b.WriteString("Load one by name: tool_search {\"tool_names\": [\"<name>\"]}.\n")
	}
}

// miss writes the last rung of the ladder.
func (w *writer) miss(queries []string) {
	w.abstained = true
	fmt.Fprintf(&w.b, "Nothing matched %s. Try other words: name the capability (\"create issue\", \"take screenshot\") rather than the task", quoteList(queries))
	if len(w.s.opts.Languages) > 1 {
		w.b.WriteString(", and give the keywords in each language (")
		w.b.WriteString(strings.Join(w.s.opts.Languages, ", "))
		w.b.WriteString(")")
	}
	w.b.WriteString(". Deferred tools are listed by name in tool_search's description.\n")
	if len(w.sc.Pending) > 0 {
		p := slices.Sorted(slices.Values(w.sc.Pending))
		fmt.Fprintf(&w.b, "MCP %s still connecting: %s. %s not searchable yet; try again shortly.\n",
			plural(len(p), "server", "servers"), strings.Join(p, ", "), plural(len(p), "Its tools are", "Their tools are"))
	}
}

package toolsearch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Near twins are tools whose names and descriptions say nearly the same
// (calculate_bmi and calculate_BMI, SLACK_INVITE_USER_TO_CHANNEL and
// SLACK_INVITE_USERS_TO_A_SLACK_CHANNEL): ranked apart, the model sees one
// and never learns of the other. A search brings the twins of its best
// hit up behind it and says what tells them apart.
//
// Two tools are twins when the stems of their names (server prefix left
// out) overlap by at least twinName (Jaccard) and those of their
// descriptions by at least twinDesc, or the descriptions by twinStrong
// alone with the names sharing a word. Set by reasoning about tool pairs,
// not on query sets.
const (
	twinName   = 0.5
	twinDesc   = 0.3
	twinStrong = 0.6
	// twinDepth is how far below the best hit a twin is looked for.
	twinDepth = 10
	// twinWords bounds the distinguishing words shown per tool.
	twinWords = 6
)

// toolWords is a tool's name stems and description stems, and its words in
// text order (lower-cased, stop words out) for the distinguishing list.
type toolWords struct {
	name, desc map[string]bool
	order      []string // stems in text order, name first
	surface    map[string]string
}

func wordsOf(t *registry.Tool) toolWords {
	tw := toolWords{name: map[string]bool{}, desc: map[string]bool{}, surface: map[string]string{}}
	_, short, ok := toolname.SplitMCP(t.Name)
	if !ok {
		short = t.Name
	}
	add := func(s string, into map[string]bool) {
		pieces(s, func(p piece) {
			w := strings.ToLower(p.text)
			if p.cjk || p.compound || isStop(w) || len(w) < 2 {
				return
			}
			st := stem(w)
			if !into[st] {
				into[st] = true
			}
			if _, seen := tw.surface[st]; !seen {
				tw.surface[st] = w
				tw.order = append(tw.order, st)
			}
		})
	}
	add(short, tw.name)
	add(t.Description, tw.desc)
	return tw
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func twins(a, b toolWords) bool {
	n, d := jaccard(a.name, b.name), jaccard(a.desc, b.desc)
	return n >= twinName && d >= twinDesc || n > 0 && d >= twinStrong
}

// distinct returns up to twinWords words of a that b lacks, in a's order.
func distinct(a, b toolWords) []string {
	var out []string
	for _, st := range a.order {
		if !b.name[st] && !b.desc[st] {
			out = append(out, a.surface[st])
			if len(out) == twinWords {
				break
			}
		}
	}
	return out
}

// withTwins brings the twins of the best hit, found among deep (the whole
// query's ranking, deeper than hits), up behind the heads of hits (the
// best hit and each need's head), keeping at most limit hits; they count
// as heads, so they come with their schema within the bound. group is the
// twins kept (the best hit not included); empty when it has none. Its
// allocations do not depend on what it finds: a query allocates the same
// in every catalog.
func withTwins(hits []search.Hit, heads int, deep []search.Hit, limit int, lookup func(string) (*registry.Tool, bool), words func(*registry.Tool) toolWords) (out []search.Hit, newHeads int, group []search.Hit) {
	out = make([]search.Hit, 0, limit)
	group = make([]search.Hit, 0, limit)
	if len(hits) == 0 {
		return hits, heads, nil
	}
	best, ok := lookup(hits[0].Name)
	if !ok {
		return hits, heads, nil
	}
	bw := words(best)
	if heads > 1 {
		// Several needs: their heads keep their places; only twins
		// already among the hits are grouped.
		deep = hits
	}
	in := func(list []search.Hit, name string) bool {
		for _, h := range list {
			if h.Name == name {
				return true
			}
		}
		return false
	}
	// A twin the hits lack takes the place of the last hit only when it
	// has more evidence than that hit: the last hit may be another need's.
	drop := 0
	for i := 0; i < len(deep) && i <= twinDepth && len(group) < limit-1; i++ {
		d := deep[i]
		if d.Name == hits[0].Name {
			continue
		}
		t, ok := lookup(d.Name)
		if !ok || !twins(bw, words(t)) {
			continue
		}
		if !in(hits, d.Name) && len(hits) == limit {
			last := len(hits) - 1 - drop
			if last < heads || hits[last].Fit.Evidence >= d.Fit.Evidence {
				continue
			}
			drop++
		}
		group = append(group, d)
	}
	if len(group) == 0 {
		return hits, heads, nil
	}
	out = append(out, hits[:heads]...)
	for _, g := range group {
		if !in(out, g.Name) {
			out = append(out, g)
		}
	}
	newHeads = len(out)
	for _, h := range hits[heads : len(hits)-drop] {
		if len(out) < limit && !in(out, h.Name) {
			out = append(out, h)
		}
	}
	return out, min(newHeads, len(out)), group
}

// twinNotes names the best hit and each twin of group with the words of
// its name and description that the others lack.
func (s *Searcher) twinNotes(best *registry.Tool, group []search.Hit, lookup func(string) (*registry.Tool, bool)) []string {
	names := []string{best.Name}
	members := []toolWords{s.twinWordsOf(best)}
	for _, g := range group {
		if t, ok := lookup(g.Name); ok {
			names = append(names, g.Name)
			members = append(members, s.twinWordsOf(t))
		}
	}
	notes := make([]string, 0, len(members))
	for k, m := range members {
		var ws []string
		for j, o := range members {
			if j == k {
				continue
			}
			for _, w := range distinct(m, o) {
				if !slices.Contains(ws, w) && len(ws) < twinWords {
					ws = append(ws, w)
				}
			}
		}
		what := "nothing in its name or description"
		if len(ws) > 0 {
			what = strings.Join(ws, ", ")
		}
		notes = append(notes, fmt.Sprintf("%s (%s)", names[k], what))
	}
	return notes
}

// twinWordsOf returns t's words for the twin rule; those of a deferred
// tool are computed once per searcher and shared, so a query allocates
// nothing in proportion to the tools' text.
func (s *Searcher) twinWordsOf(t *registry.Tool) toolWords {
	if s.tools[t.Name] != t {
		return wordsOf(t)
	}
	if v, ok := s.twin.Load(t.Name); ok {
		return v.(toolWords)
	}
	v, _ := s.twin.LoadOrStore(t.Name, wordsOf(t))
	return v.(toolWords)
}

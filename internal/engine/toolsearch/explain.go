package toolsearch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// An Explanation says how one tool scored for one query under the built-in
// ranker: for every query word, each index term it was searched as, and
// what that term earned in each field of the tool. It is what a catalog
// author needs to see why a description is not found, and what a miss
// needs to be diagnosed.
type Explanation struct {
	Tool  string  `json:"tool"`
	Score float64 `json:"score"`
	// Words are the query's words in order, each with its alternatives.
	Words []WordScore `json:"words"`
	// Name is the name-coverage part of the score.
	Name NameScore `json:"name"`
	// Coverage is how much of the query the tool covers; the words' and
	// the name's scores add up, then are multiplied by its factor.
	Coverage CoverageScore `json:"coverage"`
	// Group is the tool's evidence with its server counted
	// ([search.Fit.Group]): "nothing fits" is said only when no
	// candidate's reaches the floor.
	Group float64 `json:"group_evidence"`
}

// CoverageScore is the query coverage of one tool: of the query's mass
// (each word's best alternative weight × the largest IDF of its terms),
// the part the tool matched, and the factor the score is multiplied by.
type CoverageScore struct {
	Covered float64 `json:"covered"`
	Mass    float64 `json:"mass"`
	Factor  float64 `json:"factor"`
}

// WordScore is one query word: its alternatives (the word itself, its
// expansions) and the one that counted, the best.
type WordScore struct {
	Word     string     `json:"word"`
	Required bool       `json:"required,omitempty"`
	Alts     []AltScore `json:"alternatives"`
	// Best is the index in Alts of the alternative that counted, -1 when
	// none matched the tool.
	Best int `json:"best"`
	// Mass is the word's share of the query's mass, Covered what the tool
	// covers of it.
	Mass    float64 `json:"mass"`
	Covered float64 `json:"covered"`
	// Server is what the word is worth as evidence for the tool's server:
	// a word of its name, or one most of its tools share.
	Server float64 `json:"server_evidence,omitempty"`
}

// AltScore is one alternative of a query word.
type AltScore struct {
	Via    string      `json:"via"` // "word", "synonym", "translation", "server"
	Weight float64     `json:"weight"`
	Terms  []TermScore `json:"terms"`
	// Score is what the alternative earns outside the name; NameIDF what
	// it matched of the name.
	Score   float64 `json:"score"`
	NameIDF float64 `json:"name_idf"`
}

// TermScore is one index term and its contribution by field (weighted,
// before the alternative's weight). Fields absent from the tool are left
// out.
type TermScore struct {
	Term   string             `json:"term"`
	Fields map[string]float64 `json:"fields,omitempty"`
}

// NameScore is the name's part: weight × matched² / total, matched and
// total being IDF sums of the name's words.
type NameScore struct {
	Matched float64 `json:"matched_idf"`
	Total   float64 `json:"total_idf"`
	Score   float64 `json:"score"`
}

// ErrExplain reports that a tool cannot be explained: its name is not
// searchable, or the ranker is not the built-in one.
var ErrExplain = errors.New("search: explain")

// Explain says how the tool named name scores for queries, term by term
// and field by field. name is a full name or, as the index lists it, a
// short name that is one tool's alone. It needs the built-in [BM25F]
// ranker.
func (s *Searcher) Explain(ctx context.Context, queries []string, name string, sc Scope) (*Explanation, error) {
	name, err := s.fullName(name, sc.Announced)
	if err != nil {
		return nil, err
	}
	v, err := s.view(ctx, sc)
	if err != nil {
		return nil, err
	}
	idx := v.index
	if m, ok := idx.(merged); ok {
		// A session's own tools are scored by its overlay, calibrated to
		// the union's statistics; the plan's tools by the shared index.
		idx = m.base
		if _, shared := s.tools[name]; !shared {
			idx = m.over
		}
	}
	ix, ok := idx.(*bm25Index)
	if !ok {
		return nil, fmt.Errorf("%w: the ranker is not the built-in BM25F", ErrExplain)
	}
	return ix.explain(queries, name)
}

// termLabel writes an index term's internal prefixes readably.
var termLabel = strings.NewReplacer(groupPrefix, "server:", exactPrefix, "exact:")

func (ix *bm25Index) explain(queries []string, name string) (*Explanation, error) {
	doc := sort.SearchStrings(ix.names, name)
	if doc >= len(ix.names) || ix.names[doc] != name {
		return nil, fmt.Errorf("%w: no searchable tool is named %q", ErrExplain, name)
	}
	tf := map[int32]*[nFields]float32{}
	analyseTool(ix.tools[doc], stem, func(term string, f int) {
		id := ix.dict[term]
		if tf[id] == nil {
			tf[id] = &[nFields]float32{}
		}
		tf[id][f]++
	})
	byID := make([]string, len(ix.postings))
	for t, id := range ix.dict {
		byID[id] = t
	}
	words, _ := ix.parseQuery(queries)
	e := &Explanation{Tool: name}
	nameW := map[int32]float64{}
	for _, w := range words {
		ws := WordScore{Word: w.text, Required: w.req != 0, Best: -1}
		bestS := 0.0
		for ai, a := range w.alts {
			ws.Mass = max(ws.Mass, float64(a.mass))
			as := AltScore{Via: a.via, Weight: float64(a.w)}
			for _, id := range a.ids {
				ts := TermScore{Term: termLabel.Replace(byID[id])}
				if f := tf[id]; f != nil {
					var c [nFields]float64
					ix.fieldScores(id, int32(doc), *f, ix.discount(id, int32(doc)), &c)
					ts.Fields = map[string]float64{}
					for k, v := range c {
						if f[k] == 0 {
							continue
						}
						ts.Fields[fieldSpecs[k].label] = v
						if k == fName {
							as.NameIDF += min(float64(a.w), 1) * v
							nameW[id] = max(nameW[id], min(float64(a.w), 1))
						} else {
							as.Score += float64(a.w) * v
						}
					}
				}
				as.Terms = append(as.Terms, ts)
			}
			if as.Score+as.NameIDF > 0 {
				ws.Covered = max(ws.Covered, min(float64(a.mass), as.Score+fieldSpecs[fName].weight*as.NameIDF))
			}
			if as.Score+as.NameIDF > 0 && (ws.Best < 0 || as.Score > bestS) {
				ws.Best = ai
			}
			bestS = max(bestS, as.Score)
			ws.Alts = append(ws.Alts, as)
		}
		if g := ix.group[doc]; g >= 0 {
			for _, a := range w.alts {
				for _, id := range a.ids {
					for _, gt := range ix.gterms[id] {
						if gt.group == g {
							ws.Server = max(ws.Server, float64(serverWeight(a, w.alts[0].w)*gt.ev))
						}
					}
				}
			}
		}
		e.Group += max(ws.Covered/float64(ix.uniqueIDF()), ws.Server)
		e.Score += bestS
		e.Coverage.Mass += ws.Mass
		e.Coverage.Covered += ws.Covered
		e.Words = append(e.Words, ws)
	}
	nameMatched := 0.0
	ids := make([]int32, 0, len(nameW))
	for id := range nameW {
		ids = append(ids, id)
	}
	slices.Sort(ids) // a float sum in a fixed order
	for _, id := range ids {
		var c [nFields]float64
		ix.fieldScores(id, int32(doc), *tf[id], ix.discount(id, int32(doc)), &c)
		nameMatched += nameW[id] * c[fName]
	}
	total := float64(ix.nameTot[doc])
	e.Name = NameScore{Matched: min(nameMatched, total), Total: total}
	if total > 0 {
		e.Name.Score = fieldSpecs[fName].weight * e.Name.Matched * e.Name.Matched / total
	}
	e.Score += e.Name.Score
	e.Coverage.Factor = 1
	if e.Coverage.Mass > 0 {
		e.Coverage.Factor = 1 - coverageShare + coverageShare*min(e.Coverage.Covered/e.Coverage.Mass, 1)
	}
	e.Score *= e.Coverage.Factor
	return e, nil
}

// WriteText writes the explanation for a reader: one line per term with
// its contribution per field.
func (e *Explanation) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: score %.3f\n", e.Tool, e.Score)
	for _, ws := range e.Words {
		req := ""
		if ws.Required {
			req = " (required)"
		}
		fmt.Fprintf(&b, "  %q%s: covers %.3f of its mass %.3f", ws.Word, req, ws.Covered, ws.Mass)
		if ws.Server > 0 {
			fmt.Fprintf(&b, "; evidence %.3f for the tool's server", ws.Server)
		}
		b.WriteByte('\n')
		for i, a := range ws.Alts {
			mark := " "
			if i == ws.Best {
				mark = "*"
			}
			if a.Weight == 0 {
				// A definition naming a server: evidence for the server
				// only, no score.
				fmt.Fprintf(&b, "   %s %s, for the server only:\n", mark, a.Via)
			} else {
				fmt.Fprintf(&b, "   %s %s ×%.2f: %.3f outside the name, %.3f IDF of the name\n", mark, a.Via, a.Weight, a.Score, a.NameIDF)
			}
			for _, t := range a.Terms {
				if len(t.Fields) == 0 {
					fmt.Fprintf(&b, "       %s: not in this tool\n", t.Term)
					continue
				}
				keys := make([]string, 0, len(t.Fields))
				for k := range t.Fields {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				parts := make([]string, len(keys))
				for i, k := range keys {
					parts[i] = fmt.Sprintf("%s %.3f", k, t.Fields[k])
				}
				fmt.Fprintf(&b, "       %s: %s\n", t.Term, strings.Join(parts, ", "))
			}
		}
	}
	fmt.Fprintf(&b, "  name coverage: %.3f of %.3f IDF → %.3f\n", e.Name.Matched, e.Name.Total, e.Name.Score)
	fmt.Fprintf(&b, "  query coverage: %.3f of %.3f → score × %.3f\n", e.Coverage.Covered, e.Coverage.Mass, e.Coverage.Factor)
	fmt.Fprintf(&b, "  evidence with the server counted: %.3f (\"nothing fits\" when every candidate's is under %.2f)\n", e.Group, nothingFitsEvidence)
	_, err := io.WriteString(w, b.String())
	return err
}

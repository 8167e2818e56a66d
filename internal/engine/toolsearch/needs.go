package toolsearch

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/toolshelf/toolshelf/search"
)

// maxNeeds bounds how many needs one query is split into: each costs one
// more search of the index. needDisplace: a need's head the list lacks
// takes the last place when its evidence for its need is above
// needDisplace × the last hit's evidence for the whole query. Both set on
// the tune halves (docs/search-quality.md).
const (
	maxNeeds     = 6
	needDisplace = 0.8
)

// needMarks separate the needs of one request: sentence ends, and words
// that start another step ("then", "also", Chinese 然后/并且/接着/同时/
// 以及/另外/之后/再). They are matched lower-cased, as whole words for
// Latin ones.
var (
	needSentence = []string{". ", "? ", "! ", "; ", "。", "？", "！", "；"}
	needWords    = []string{"then", "also", "finally", "afterwards", "additionally", "next", "and"}
	needCJK      = []string{"然后", "并且", "接着", "同时", "以及", "另外", "之后", "最后", "再"}
)

// splitNeeds splits the strings of one call into its needs: each string's
// sentences and clauses. It returns nil when there is only one need. A
// piece with fewer than two words ("and then", "Finally,") joins the next.
func splitNeeds(queries []string) []string {
	var out []string
	for _, q := range queries {
		for _, p := range splitClauses(q) {
			if len(strings.FieldsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })) == 0 {
				continue
			}
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return nil
	}
	if len(out) > maxNeeds {
		// Keep the count bounded: the tail joins the last need.
		out = append(out[:maxNeeds-1], strings.Join(out[maxNeeds-1:], " "))
	}
	return out
}

// splitClauses cuts one string at sentence ends, at CJK step words and
// before Latin step words.
func splitClauses(q string) []string {
	s := q
	for _, m := range needSentence {
		s = strings.ReplaceAll(s, m, m+"\x00")
	}
	for _, m := range needCJK {
		s = strings.ReplaceAll(s, m, "\x00"+m)
	}
	s = strings.ReplaceAll(s, ",", ",\x00")
	var out []string
	for _, part := range strings.Split(s, "\x00") {
		words := strings.Fields(part)
		start := 0
		for i, w := range words {
			lw := strings.ToLower(strings.Trim(w, ",.;:!?"))
			for _, m := range needWords {
				if lw == m && i > start {
					out = append(out, strings.Join(words[start:i], " "))
					start = i
					break
				}
			}
		}
		if start < len(words) {
			out = append(out, strings.Join(words[start:], " "))
		}
	}
	// A clause of fewer than three words ("for the triangle," "and
	// then") says too little alone: it joins the next one.
	var merged []string
	carry := ""
	for _, p := range out {
		p = strings.TrimSpace(carry + " " + p)
		if len(strings.Fields(p)) < 3 && !hasCJK(p) {
			carry = p
			continue
		}
		carry = ""
		merged = append(merged, p)
	}
	if carry != "" {
		if len(merged) == 0 {
			merged = append(merged, carry)
		} else {
			merged[len(merged)-1] += " " + carry
		}
	}
	return merged
}

// rankNeeds ranks a query that may carry several needs. The whole query's
// ranking comes first (its best hit stays first); then the best credible
// hit of each need the first results lack, so that one need's variants do
// not fill the list; then the rest of the whole query's ranking. heads
// counts the leading hits that should come with their schema: the best
// hit and each need's head. deep is the whole query's ranking to
// listDepth, for [withTwins] and the candidate list.
func rankNeeds(ctx context.Context, idx search.Index, queries []string, limit int) (hits []search.Hit, heads int, note string, deep []search.Hit, err error) {
	deep, note, err = rank(ctx, idx, queries, max(limit, twinDepth+1, listDepth))
	hits = deep[:min(len(deep), limit)]
	if err != nil || len(hits) == 0 || limit < 2 {
		return hits, 1, note, deep, err
	}
	needs := splitNeeds(queries)
	if needs == nil {
		return hits, 1, note, deep, nil
	}
	// The whole query's ranking, with each need's head moved up behind the
	// best hit, or put in place of the weakest hit below the heads when
	// the list lacks it and the head has enough evidence for its need
	// against what that hit has for the whole query.
	out := append(make([]search.Hit, 0, limit+1), hits...)
	heads = 1
	for _, n := range needs {
		nh, err := idx.Search(ctx, []string{n}, 1)
		if err != nil {
			return nil, 0, "", nil, err
		}
		if len(nh) == 0 || !nh[0].Fit.Credible() || nh[0].Fit.Evidence < headEvidence {
			continue
		}
		at := slices.IndexFunc(out, func(h search.Hit) bool { return h.Name == nh[0].Name })
		switch {
		case at >= heads:
			h := out[at]
			copy(out[heads+1:at+1], out[heads:at])
			out[heads] = h
			heads++
		case at < 0 && heads < limit:
			if len(out) == limit {
				if out[len(out)-1].Fit.Evidence*needDisplace >= nh[0].Fit.Evidence {
					continue
				}
				out = out[:len(out)-1]
			}
			out = slices.Insert(out, heads, nh[0])
			heads++
		}
	}
	return out, heads, note, deep, nil
}

// headEvidence is the evidence a need's best tool must have to be put up
// front: the abstention rule's strong evidence (search.Fit.Credible), more
// than one word found in exactly one tool.
const headEvidence = 1.05

package execute

import (
	"slices"
	"strings"
	"unicode"
)

// maxSuggestions bounds the names an "unknown tool" answer proposes.
const maxSuggestions = 3

// closest returns up to maxSuggestions names from visible that look like
// name: by edit distance (case-insensitive), shared name tokens and
// containment; skip, asked of the names that look alike only, leaves a
// name out. The order is deterministic: best score, then name.
func closest(name string, visible []string, skip func(string) bool) []string {
	q := strings.ToLower(cutRunes(name, 64))
	if q == "" {
		return nil
	}
	qt := tokens(cutRunes(name, 64))
	type cand struct {
		name  string
		score int
	}
	var cs []cand
	for _, n := range visible {
		ln := strings.ToLower(n)
		dist := levenshtein(q, ln)
		shared := 0
		for _, t := range tokens(n) {
			if slices.Contains(qt, t) {
				shared++
			}
		}
		contains := len(q) >= 3 && (strings.Contains(ln, q) || strings.Contains(q, ln))
		near := dist <= max(2, len(q)/3)
		if !near && shared == 0 && !contains || skip != nil && skip(n) {
			continue
		}
		score := dist - 3*shared
		if contains {
			score -= 3
		}
		cs = append(cs, cand{n, score})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.score != b.score {
			return a.score - b.score
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, maxSuggestions)
	for i := 0; i < len(cs) && i < maxSuggestions; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// tokens splits a tool name into lower-case words at _, -, digits-letters
// and camelCase boundaries: "mcp__github__get_me" → mcp github get me,
// "WebFetch" → web fetch.
func tokens(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 1 || len(cur) == 1 && unicode.IsDigit(cur[0]) {
			out = append(out, strings.ToLower(string(cur)))
		}
		cur = cur[:0]
	}
	var prev rune
	for _, r := range name {
		switch {
		case r == '_' || r == '-':
			flush()
		case unicode.IsUpper(r) && prev != 0 && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// levenshtein is the edit distance of two short strings (names are at most
// 64 bytes here), over bytes.
func levenshtein(a, b string) int {
	if len(a) == 0 {
		return len(b)
	}
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			next := min(row[j]+1, row[j-1]+1, diag+cost)
			diag, row[j] = row[j], next
		}
	}
	return row[len(b)]
}

// Package rulecheck finds the rules of a harness's configuration — permission
// rules, hook patterns, defer layers, mode allowlists — that select no tool:
// a misspelt Deny(mcp__filesystem__writ_file) parses, matches nothing, and
// leaves the tool it meant visible and callable. Package request reports
// what it finds (request.Session.RuleWarnings) and the CLI prints it.
package rulecheck

import (
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// maxSuggestions bounds the names one finding proposes.
const maxSuggestions = 3

// Rule is one pattern of the configuration.
type Rule struct {
	// Text is the rule as the harness wrote it: "Deny(write_file)",
	// "Defer(mcp__*)", `hook "audit" (mcp__git__*)`, `mode "ask" allows (Read)`.
	Text string
	// Pattern is the tool-name pattern; annotation patterns ("@readonly")
	// select by hints, not names, and are never reported.
	Pattern string
	// Source says where the rule came from: a layer's name, a permission
	// rule's Source; "" when unknown.
	Source string
}

// Finding is a rule that selects no tool.
type Finding struct {
	Rule Rule
	// Suggestions are names (or server patterns, mcp__<server>__*) close
	// to the rule's pattern, best first; at most 3.
	Suggestions []string
}

// Unmatched returns, in rules' order, the rules whose pattern selects none
// of names and none of the tools a pending server may bring (a pattern
// that can match mcp__<server>__... for a server in pending is not
// "nothing": its tools have not arrived yet). names are every tool name
// the rules are matched against (exposed names, and the mcp__ names
// aliased tools were registered under).
func Unmatched(rules []Rule, names, pending []string) []Finding {
	var out []Finding
	for _, r := range rules {
		if strings.HasPrefix(r.Pattern, "@") || toolname.CheckPattern(r.Pattern) != nil {
			continue
		}
		if slices.ContainsFunc(names, func(n string) bool { return toolname.MatchPattern(r.Pattern, n) }) {
			continue
		}
		if slices.ContainsFunc(pending, func(s string) bool { return mayMatchServer(r.Pattern, s) }) {
			continue
		}
		out = append(out, Finding{Rule: r, Suggestions: Closest(r.Pattern, names)})
	}
	return out
}

// mayMatchServer reports whether p can match a tool server will expose:
// its literal start (up to the first *) and mcp__<server>__ agree.
func mayMatchServer(p, server string) bool {
	prefix := toolname.MCPPrefix + server + "__"
	lit, _, wild := strings.Cut(p, "*")
	if !wild {
		return strings.HasPrefix(lit, prefix) && len(lit) > len(prefix)
	}
	return strings.HasPrefix(lit, prefix) || strings.HasPrefix(prefix, lit)
}

// Closest returns up to 3 names close to pattern p, the best ones (ties
// sorted by name): the same
// name but for case, "_" and "-" (mcp_filesystem_write_file); an MCP tool
// whose own name p is (write_file for mcp__filesystem__write_file); names
// within a few edits (writ_file; an eighth of the pattern, at least 2). For a pattern with * the candidates are
// the server patterns mcp__<server>__* too.
func Closest(p string, names []string) []string {
	type cand struct {
		name  string
		score int
	}
	q := strings.ToLower(p)
	limit := max(2, len(q)/8)
	var cs []cand
	seen := map[string]bool{}
	var lv levenshteiner
	consider := func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		if sameLoose(q, n) {
			cs = append(cs, cand{n, 0})
			return
		}
		if _, tool, ok := toolname.SplitMCP(n); ok && strings.EqualFold(tool, p) {
			cs = append(cs, cand{n, 1})
			return
		}
		if abs(len(n)-len(q)) > limit {
			return
		}
		if d := lv.distance(q, n); d <= limit {
			cs = append(cs, cand{n, 1 + d})
		}
	}
	wild := strings.Contains(p, "*")
	for _, n := range names {
		if wild {
			if server, _, ok := toolname.SplitMCP(n); ok {
				consider(toolname.MCPPrefix + server + "__*")
			}
			continue
		}
		consider(n)
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.score != b.score {
			return a.score - b.score
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, min(len(cs), maxSuggestions))
	// Only the best (ties included): a near miss should not come with its
	// neighbours (writ_file is write_file, not edit_file).
	for i := 0; i < len(cs) && i < maxSuggestions && cs[i].score == cs[0].score; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// sameLoose reports whether a (lower case) and b are the same name but
// for case and the separators a typo most often doubles or halves ("_",
// "-"). It does not allocate.
func sameLoose(a, b string) bool {
	i, j := 0, 0
	for {
		for i < len(a) && (a[i] == '_' || a[i] == '-') {
			i++
		}
		for j < len(b) && (b[j] == '_' || b[j] == '-') {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != lower(b[j]) {
			return false
		}
		i, j = i+1, j+1
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// levenshteiner computes edit distances of byte strings (tool names are
// ASCII), case-insensitively, reusing its rows.
type levenshteiner struct{ prev, cur []int }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// distance is the edit distance of a (already lower case) and b.
func (l *levenshteiner) distance(a, b string) int {
	if cap(l.prev) < len(b)+1 {
		l.prev, l.cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur := l.prev[:len(b)+1], l.cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == lower(b[j-1]) {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

package request

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// maxDiffLines bounds the lines of each definition a change's diff
// compares line by line (the work is their product); longer definitions
// are diffed by their first lines and say so.
const maxDiffLines = 400

// definitionSHA256 returns the SHA-256, in hex, of t's canonical
// definition ([registry.Tool.CanonicalDefinition]: name, description,
// input schema and annotations, keys sorted): the content hash by which a session pins a tool and names a
// [PendingChange].
func definitionSHA256(t *registry.Tool) string { return canonicalSHA256(t.CanonicalDefinition()) }

// canonicalSHA256 is definitionSHA256 of a canonical definition already
// made.
func canonicalSHA256(def []byte) string {
	sum := sha256.Sum256(def)
	return hex.EncodeToString(sum[:])
}

// definitionDiff returns a readable line diff of two definitions: their
// canonical JSON indented, unchanged lines left out, removed lines marked
// "- " and added ones "+ ".
func definitionDiff(old, new *registry.Tool) string {
	return canonicalDiff(old.CanonicalDefinition(), new.CanonicalDefinition())
}

// canonicalDiff is definitionDiff of two canonical definitions already
// made.
func canonicalDiff(old, new []byte) string {
	a, b := indentedLines(old), indentedLines(new)
	var out strings.Builder
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		a, b = a[:min(len(a), maxDiffLines)], b[:min(len(b), maxDiffLines)]
		out.WriteString("(long definitions: the first 400 lines of each compared)\n")
	}
	// The lines both share at the start and the end are no difference:
	// a change is usually local, and what is left is small.
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	n, m := len(a), len(b)
	if n*m > maxDiffCells {
		// Too large a middle for the table: every old line, then every
		// new one — still a correct diff, linear in the input.
		for _, l := range a {
			out.WriteString("- " + l + "\n")
		}
		for _, l := range b {
			out.WriteString("+ " + l + "\n")
		}
		return out.String()
	}
	// Longest common subsequence in linear space (Hirschberg): two rows
	// of len(b)+1 counters, reused through the recursion, where a table
	// of every cell cost 4 bytes a cell, 85 bytes per definition byte for
	// a Sync of 50 small changed tools (issue 43).
	rows := make([]int32, 2*(m+1))
	hirschberg(a, b, rows[:m+1], rows[m+1:], &out)
	return out.String()
}

// hirschberg writes the line diff of a and b to out: lines of a not in
// their longest common subsequence as "- ", lines of b as "+ ", in order.
// fw and bw are scratch rows of at least len(b)+1 counters.
func hirschberg(a, b []string, fw, bw []int32, out *strings.Builder) {
	switch {
	case len(a) == 0:
		for _, l := range b {
			out.WriteString("+ " + l + "\n")
		}
		return
	case len(b) == 0:
		for _, l := range a {
			out.WriteString("- " + l + "\n")
		}
		return
	case len(a) == 1:
		k := slices.Index(b, a[0])
		if k < 0 {
			out.WriteString("- " + a[0] + "\n")
			k = len(b)
		}
		for _, l := range b[:k] {
			out.WriteString("+ " + l + "\n")
		}
		for _, l := range b[min(k+1, len(b)):] {
			out.WriteString("+ " + l + "\n")
		}
		return
	}
	mid := len(a) / 2
	lcsForward(a[:mid], b, fw)
	lcsBackward(a[mid:], b, bw)
	k, best := 0, int32(-1)
	for j := 0; j <= len(b); j++ {
		if v := fw[j] + bw[j]; v > best {
			k, best = j, v
		}
	}
	hirschberg(a[:mid], b[:k], fw, bw, out)
	hirschberg(a[mid:], b[k:], fw, bw, out)
}

// lcsForward sets row[j] to the length of the longest common subsequence
// of a and b[:j], for j from 0 to len(b).
func lcsForward(a, b []string, row []int32) {
	row = row[:len(b)+1]
	clear(row)
	for _, x := range a {
		diag := int32(0)
		for j := 1; j <= len(b); j++ {
			up := row[j]
			if x == b[j-1] {
				row[j] = diag + 1
			} else {
				row[j] = max(up, row[j-1])
			}
			diag = up
		}
	}
}

// lcsBackward sets row[j] to the length of the longest common subsequence
// of a and b[j:], for j from 0 to len(b).
func lcsBackward(a, b []string, row []int32) {
	row = row[:len(b)+1]
	clear(row)
	for i := len(a) - 1; i >= 0; i-- {
		diag := int32(0)
		for j := len(b) - 1; j >= 0; j-- {
			down := row[j]
			if a[i] == b[j] {
				row[j] = diag + 1
			} else {
				row[j] = max(down, row[j+1])
			}
			diag = down
		}
	}
}

// maxDiffCells bounds the diff's work (line comparisons): past it the
// changed middle is shown as removed and added whole.
const maxDiffCells = 1 << 14

func indentedLines(def []byte) []string {
	var buf bytes.Buffer
	buf.Grow(2 * len(def))
	if err := json.Indent(&buf, def, "", "  "); err != nil {
		return nil
	}
	return strings.Split(buf.String(), "\n")
}

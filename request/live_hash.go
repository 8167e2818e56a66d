package request

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
func definitionSHA256(t *registry.Tool) string {
	sum := sha256.Sum256(t.CanonicalDefinition())
	return hex.EncodeToString(sum[:])
}

// definitionDiff returns a readable line diff of two definitions: their
// canonical JSON indented, unchanged lines left out, removed lines marked
// "- " and added ones "+ ".
func definitionDiff(old, new *registry.Tool) string {
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
	// Longest common subsequence, then a walk that emits the differences.
	lcs := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return lcs[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*(m+1)+j] = at(i+1, j+1) + 1
			} else {
				lcs[i*(m+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			i, j = i+1, j+1
		case i < n && (j == m || at(i+1, j) >= at(i, j+1)):
			out.WriteString("- " + a[i] + "\n")
			i++
		default:
			out.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return out.String()
}

// maxDiffCells bounds the diff's table (4 bytes a cell): past it the
// changed middle is shown as removed and added whole.
const maxDiffCells = 1 << 14

func indentedLines(t *registry.Tool) []string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, t.CanonicalDefinition(), "", "  "); err != nil {
		return nil
	}
	return strings.Split(buf.String(), "\n")
}

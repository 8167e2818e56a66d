package ecmare

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/testkit/longtest"
)

// The differences in unicode_delta.go are relative to the Unicode version
// of Go's tables when they were generated; a Go release with other tables
// needs them regenerated.
func TestUnicodeDeltaMatchesGo(t *testing.T) {
	assert.Equal(t, deltaGoUnicode, unicode.Version, "Go's unicode tables changed: go run ./internal/cmd/unicodegen")
}

// TestUnicodeDeltaCurrent regenerates unicode_delta.go from node and
// compares (about 25 s, long runs only), when node's Unicode version is
// the one the file was generated from.
func TestUnicodeDeltaCurrent(t *testing.T) {
	if !longtest.On() {
		t.Skip("long runs only (" + longtest.EnvVar + "=1)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	v, err := exec.Command(node, "-p", "process.versions.unicode").Output()
	require.NoError(t, err)
	if got := strings.TrimSpace(string(v)); got != ecmaUnicode {
		t.Skipf("node's Unicode is %s, the file's %s", got, ecmaUnicode)
	}
	out, err := exec.Command("go", "run", "../../cmd/unicodegen", "-check", "-o", "unicode_delta.go").CombinedOutput()
	assert.NoError(t, err, "%s", out)
}

// Every written-out property class agrees with node on the code points
// where Go's tables and ECMA-262's differ, and around them (node of the
// file's Unicode version only).
func TestPropertySetsAgreeWithNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	v, err := exec.Command(node, "-p", "process.versions.unicode").Output()
	require.NoError(t, err)
	if got := strings.TrimSpace(string(v)); got != ecmaUnicode {
		t.Skipf("node's Unicode is %s, the file's %s", got, ecmaUnicode)
	}
	type row struct {
		P  string `json:"p"`
		CP []rune `json:"cp"`
	}
	var rows []row
	var res []*regexp.Regexp
	for key, d := range unicodeDelta {
		kind, val, _ := strings.Cut(key, ":")
		var probes []rune
		for _, r := range append(append([]span{}, d.add...), d.del...) {
			probes = append(probes, r[0], r[1], r[0]-1, r[1]+1)
		}
		for _, neg := range []string{"p", "P"} {
			p := `^\` + neg + `{` + kind + `=` + val + `}$`
			re, err := Translate(p)
			require.NoError(t, err, p)
			rows = append(rows, row{p, probes})
			res = append(res, regexp.MustCompile(re))
		}
	}
	in, _ := json.Marshal(rows)
	script := `const rows = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(rows.map(r => { const re = new RegExp(r.p, "u"); return r.cp.map(c => c >= 0 && c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF) && re.test(String.fromCodePoint(c))) })));`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	require.NoError(t, err)
	var got [][]bool
	require.NoError(t, json.Unmarshal(out, &got))
	for i, r := range rows {
		for j, c := range r.CP {
			if c < 0 || c > unicode.MaxRune || c >= 0xD800 && c <= 0xDFFF {
				continue
			}
			assert.Equal(t, got[i][j], res[i].MatchString(string(c)), "%s on U+%04X", r.P, c)
		}
	}
}

// A pattern of many written-out classes is refused, not compiled at any
// cost.
func TestPropertyExpansionBounded(t *testing.T) {
	_, err := Translate(strings.Repeat(`\p{L}`, 100))
	assert.ErrorIs(t, err, ErrNoEquivalent)
	_, err = Translate(strings.Repeat(`\p{L}`, 10))
	assert.NoError(t, err)
}

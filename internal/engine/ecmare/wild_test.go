package ecmare

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wildPatterns collects every string-valued "pattern" and every
// patternProperties key of the captured MCP servers in testdata/wild.
func wildPatterns(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "wild", "*.json"))
	require.NoError(t, err)
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if p, ok := x["pattern"].(string); ok {
				seen[p] = true
			}
			if pp, ok := x["patternProperties"].(map[string]any); ok {
				for k := range pp {
					seen[k] = true
				}
			}
			for _, sub := range x {
				walk(sub)
			}
		case []any:
			for _, sub := range x {
				walk(sub)
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(b, &v))
		walk(v)
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// probes are strings every wild pattern is tried on, RE2 against node.
var probes = []string{"", "a", "abc", "ABC_123", "gls_abc-1", "https://example.com/x", "http:/x", "12:34", "I12-3;4:5",
	"3d", "10w", "image.png", "a.b.c", "my-name", "-x", "é", "中文", "a b", "a\nb", "00000000-0000-0000-0000-000000000000",
	"123e4567-e89b-12d3-a456-426614174000", "x.example.com", "v1.2.3", "😀"}

// Every pattern the wild servers use translates, and matches each probe
// exactly as ECMA-262 (node, u flag) does.
func TestWildPatternsAgreeWithECMA(t *testing.T) {
	pats := wildPatterns(t)
	require.NotEmpty(t, pats)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	in, _ := json.Marshal(map[string]any{"p": pats, "s": probes})
	script := `const d = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(d.p.map(p => { let re; try { re = new RegExp(p, "u") } catch (e) { try { re = new RegExp(p) } catch (e) { return null } }; return d.s.map(s => re.test(s)) })));`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	require.NoError(t, err)
	var want [][]bool
	require.NoError(t, json.Unmarshal(out, &want))
	for i, p := range pats {
		re2, err := Translate(p)
		if want[i] == nil {
			assert.Error(t, err, "%q is not ECMA-262", p)
			continue
		}
		if !assert.NoError(t, err, p) {
			continue
		}
		re := regexp.MustCompile(re2)
		for j, s := range probes {
			assert.Equal(t, want[i][j], re.MatchString(s), "pattern %q (RE2 %q) on %q", p, re2, s)
		}
	}
	t.Logf("%d distinct wild patterns, each on %d probes", len(pats), len(probes))
}

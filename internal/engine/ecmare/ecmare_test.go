package ecmare

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// construct is one row of the table: an ECMA-262 pattern and strings that
// ECMA-262 (with the u flag) says it matches and does not match.
type construct struct {
	name    string
	pattern string
	match   []string
	nomatch []string
}

var constructs = []construct{
	{"\\uXXXX range (Chinese)", `^[\u4e00-\u9fa5]+$`, []string{"中文", "汉字测试"}, []string{"abc", "中a", ""}},
	{"\\uXXXX outside a class", `^\u0041\u00e9$`, []string{"Aé"}, []string{"Ae", "aé"}},
	{"surrogate pair as one code point", `^\uD83D\uDE00$`, []string{"😀"}, []string{"😁", "\uFFFD"}},
	{"\\u{...} (u flag)", `^\u{1F600}-\u{41}$`, []string{"😀-A"}, []string{"😀-B"}},
	{"\\u{...} range in a class", `^[\u{1F600}-\u{1F64F}]$`, []string{"😀", "🙏"}, []string{"🚀", "a"}},
	{"\\d is ASCII", `^\d+$`, []string{"0123456789"}, []string{"٣", "１", "a"}},
	{"\\D", `^\D$`, []string{"a", "٣"}, []string{"5"}},
	{"\\w is ASCII", `^\w+$`, []string{"a_Z9"}, []string{"é", "a-b", "ß"}},
	{"\\W", `^\W$`, []string{"é", "-"}, []string{"_"}},
	{"\\s includes Unicode spaces", `^\s$`, []string{" ", "\t", "\n", "\v", "\f", "\r", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"}, []string{"a", "\u200b", "\u180e", "\u0085"}},
	{"\\S", `^\S$`, []string{"a", "\u200b", "\u0085"}, []string{" ", "\u00a0", "\ufeff"}},
	{"\\s in a class", `^[\s,]+$`, []string{" ,\u3000"}, []string{"a"}},
	{"\\S in a class", `^[\S]+$`, []string{"ab"}, []string{"a b", "\u2028"}},
	{"negated class with \\s", `^[^\s]+$`, []string{"ab"}, []string{"a\u00a0b"}},
	{". excludes line terminators", `^.$`, []string{"a", "😀", "\u0085"}, []string{"\n", "\r", "\u2028", "\u2029"}},
	{"[^] is any code point", `^[^]$`, []string{"\n", "a", "😀"}, []string{"", "ab"}},
	{"[] matches nothing", `a[]`, nil, []string{"a", "a[]"}},
	{"\\cX control escape", `^\cJ\ca$`, []string{"\n\x01"}, []string{"cJca"}},
	{"named group", `^(?<year>\d{4})-(?<month>\d{2})$`, []string{"2024-05"}, []string{"24-05"}},
	{"identity escape \\/", `^a\/b$`, []string{"a/b"}, []string{"a\\/b"}},
	{"identity escapes in a class", `^[\-\]\\]+$`, []string{"-]\\"}, []string{"a"}},
	{"\\0 is NUL", `^a\0$`, []string{"a\x00"}, []string{"a0"}},
	{"\\xHH", `^\x41$`, []string{"A"}, []string{"x41"}},
	{"\\v \\f \\t", `^\v\f\t$`, []string{"\v\f\t"}, []string{"vft"}},
	{"[\\b] is backspace", `^[\b]$`, []string{"\b"}, []string{"b"}},
	{"\\b word boundary", `\bcat\b`, []string{"a cat.", "cat", "écat"}, []string{"cats", "_cat"}},
	{"lone ] and { are literals", `^a]{b}$`, []string{"a]{b}"}, []string{"a]b"}},
	{"quantifiers and lazy forms", `^a{2,3}?b+?c*d?$`, []string{"aab", "aaabbccd"}, []string{"ab", "aaaab"}},
	{"$ is the end of input only", `^a$`, []string{"a"}, []string{"a\n"}},
	{"\\p{Script=...}", `^\p{Script=Greek}+$`, []string{"αβγ"}, []string{"abc"}},
	{"\\p{L} and \\P{L}", `^\p{L}\P{L}$`, []string{"é1"}, []string{"11", "éé"}},
	{"\\p{Letter} long name", `^[\p{Letter}\p{Nd}]+$`, []string{"é٣"}, []string{"é!"}},
	{"not anchored", `b`, []string{"abc"}, []string{"ac"}},
	// Issue 33: Go's tables (Unicode 15.0) lack U+2EBF0 (CJK Extension I,
	// Unicode 15.1), so these accepted it; ECMA-262 engines reject it.
	{"\\P{L} and a Unicode 15.1 letter", `^\P{L}+$`, []string{"123", "!"}, []string{"\U0002EBF0", "1\U0002EBF0", "a"}},
	{"\\P{Script=Han} and a Unicode 15.1 ideograph", `^\P{Script=Han}+$`, []string{"abc"}, []string{"\U0002EBF0", "中"}},
	{"[^\\p{Lo}] and a Unicode 15.1 ideograph", `^[^\p{Lo}]+$`, []string{"abc"}, []string{"\U0002EBF0"}},
	{"\\p{Lo} holds a Unicode 15.1 ideograph", `^[\p{Lo}\d]+$`, []string{"\U0002EBF0", "中1"}, []string{"a"}},
	{"\\p{Lu} holds a Unicode 16.0 letter", `^\p{Lu}$`, []string{"\uA7CB", "A"}, []string{"a", "\uA7CD"}},
	{"a Unicode 16.0 script", `^\p{Script=Garay}+$`, []string{"\U00010D50"}, []string{"a"}},
	{"\\p{LC}", `^\p{LC}+$`, []string{"aA\uA7CB"}, []string{"1", "\u0295"}},
}

func TestTranslateTable(t *testing.T) {
	for _, c := range constructs {
		t.Run(c.name, func(t *testing.T) {
			out, err := Translate(c.pattern)
			require.NoError(t, err, c.pattern)
			re := regexp.MustCompile(out)
			for _, s := range c.match {
				assert.True(t, re.MatchString(s), "%s (RE2 %s) should match %q", c.pattern, out, s)
			}
			for _, s := range c.nomatch {
				assert.False(t, re.MatchString(s), "%s (RE2 %s) should not match %q", c.pattern, out, s)
			}
		})
	}
}

// TestTableAgreesWithECMA runs the table's patterns through node's
// RegExp with the u flag (without it for the Annex B forms the u flag
// refuses): the expectations are ECMA-262's, not ours.
func TestTableAgreesWithECMA(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	type row struct {
		P string   `json:"p"`
		S []string `json:"s"`
	}
	var rows []row
	var want [][]bool
	for _, c := range constructs {
		rows = append(rows, row{c.pattern, append(append([]string{}, c.match...), c.nomatch...)})
		w := make([]bool, 0, len(c.match)+len(c.nomatch))
		for range c.match {
			w = append(w, true)
		}
		for range c.nomatch {
			w = append(w, false)
		}
		want = append(want, w)
	}
	in, _ := json.Marshal(rows)
	script := `const rows = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(rows.map(r => { let re; try { re = new RegExp(r.p, "u") } catch (e) { re = new RegExp(r.p) }; return r.s.map(s => re.test(s)) })));`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	require.NoError(t, err)
	var got [][]bool
	require.NoError(t, json.Unmarshal(out, &got))
	for i, c := range constructs {
		assert.Equal(t, want[i], got[i], "%s: node disagrees with the table for %s", c.name, c.pattern)
	}
}

func TestNoEquivalent(t *testing.T) {
	for _, p := range []string{
		`^(?=.*\d)\w+$`, `^(?!admin)\w+$`, `(?<=\$)\d+`, `(?<!-)\d+`,
		`(a)\1`, `(?<x>a)\k<x>`, `\012`, `^\uD800$`, `(?i:abc)`, `a{1001}`, `\p{Script_Extensions=Latin}`,
	} {
		_, err := Translate(p)
		assert.ErrorIs(t, err, ErrNoEquivalent, p)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, p := range []string{`(`, `a)`, `*a`, `a**`, `[a`, `[z-a]`, `\`, `a{3,1}`, `\q`, `[\d-z]`} {
		_, err := Translate(p)
		require.Error(t, err, p)
		assert.True(t, errors.Is(err, ErrSyntax) || errors.Is(err, ErrNoEquivalent), p)
	}
}

func FuzzTranslate(f *testing.F) {
	for _, c := range constructs {
		f.Add(c.pattern)
	}
	f.Fuzz(func(t *testing.T, p string) {
		out, err := Translate(p)
		if err == nil {
			regexp.MustCompile(out)
		}
	})
}

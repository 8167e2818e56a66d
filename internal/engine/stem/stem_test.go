package stem

import (
	"bufio"
	"compress/gzip"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vocabulary reads testdata/english.txt.gz: one "word stem" pair a line,
// the Snowball project's english/voc.txt beside english/output.txt.
func vocabulary(t testing.TB) [][2]string {
	f, err := os.Open("testdata/english.txt.gz")
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	var pairs [][2]string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		word, want, ok := strings.Cut(sc.Text(), " ")
		require.True(t, ok, "line %d: %q", len(pairs)+1, sc.Text())
		pairs = append(pairs, [2]string{word, want})
	}
	require.NoError(t, sc.Err())
	return pairs
}

// TestSnowballVocabulary checks every pair of the official test vocabulary
// through both entry points.
func TestSnowballVocabulary(t *testing.T) {
	pairs := vocabulary(t)
	require.Len(t, pairs, 42649, "the copied vocabulary is complete")
	bad := 0
	buf := make([]byte, 0, 8)
	for _, p := range pairs {
		got := Stem(p[0])
		buf = AppendStem(buf[:0], p[0])
		if got != p[1] || string(buf) != p[1] {
			bad++
			if bad <= 20 {
				t.Errorf("Stem(%q) = %q, AppendStem = %q, want %q", p[0], got, buf, p[1])
			}
		}
	}
	assert.Zero(t, bad, "mismatches of %d pairs", len(pairs))
}

func TestUnchanged(t *testing.T) {
	for _, w := range []string{"", "a", "is", "über", "naïve", "日本語", "ünderstanding"} {
		assert.Equal(t, w, Stem(w))
		assert.Equal(t, w, string(AppendStem(nil, w)))
	}
}

// TestLongWord covers the heap path for words beyond the stack buffer.
func TestLongWord(t *testing.T) {
	base := strings.Repeat("x", stackWord)
	assert.Equal(t, base+"gener", Stem(base+"generations"))
	assert.Equal(t, base+"happi", Stem(base+"happy"))
	assert.Equal(t, "pre"+base+"happi", string(AppendStem([]byte("pre"), base+"happy")))
}

// TestAppendStemKeepsPrefix checks that AppendStem leaves dst's bytes alone
// and returns the same stem whether or not dst has room.
func TestAppendStemKeepsPrefix(t *testing.T) {
	for _, p := range vocabulary(t)[:2000] {
		dst := AppendStem([]byte("ab "), p[0])
		assert.Equal(t, "ab "+p[1], string(dst))
		roomy := make([]byte, 3, 64)
		copy(roomy, "ab ")
		assert.Equal(t, "ab "+p[1], string(AppendStem(roomy, p[0])))
	}
}

// TestStemAllocations checks the allocation promises: none when the stem
// is a prefix of the word, none for AppendStem into a roomy buffer.
func TestStemAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not the code's under the race detector")
	}
	if testing.Short() {
		t.Skip("allocation counts are not meaningful under -short instrumentation")
	}
	prefix := []string{"deleted", "notifications", "connection", "generalization", "running", "logs"}
	for _, w := range prefix {
		s := Stem(w)
		require.True(t, strings.HasPrefix(w, s), "%q -> %q is a prefix", w, s)
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Stem(w) }), w)
	}
	buf := make([]byte, 0, 64)
	for _, w := range append(prefix, "happy", "skies", "conditional") {
		assert.Zero(t, testing.AllocsPerRun(100, func() { buf = AppendStem(buf[:0], w) }), w)
	}
}

// TestAmongOrder guards the invariant match relies on: within each
// last-letter bucket, longer suffixes come first, so the first hit is
// Snowball's longest match.
func TestAmongOrder(t *testing.T) {
	for i, a := range []*among{step2, step3, step4} {
		n := 0
		for c, rules := range a {
			for j, r := range rules {
				n++
				assert.Equal(t, byte(c), r.suffix[len(r.suffix)-1])
				if j > 0 {
					assert.GreaterOrEqual(t, len(rules[j-1].suffix), len(r.suffix), "step %d bucket %q", i+2, c)
				}
			}
		}
		assert.Equal(t, []int{25, 9, 18}[i], n, "step %d rule count (english.sbl)", i+2)
	}
}

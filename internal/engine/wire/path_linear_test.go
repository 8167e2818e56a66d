package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deepBodies are two bodies of about 32 KB nested n deep that differ at
// the innermost value.
func deepBodies(n int) (a, b []byte) {
	open, close := strings.Repeat(`{"a":[`, n), strings.Repeat(`]}`, n)
	return []byte(open + "1" + close), []byte(open + "2" + close)
}

// TestDiffLinearInNesting is issue 22's case 10: "wire.Diff is quadratic
// in nesting (0.58 s on two 32 KB bodies nested 16,000 deep)." The path
// of the difference is now found reading each byte before it a bounded
// number of times: the bytes read are counted, not timed.
func TestDiffLinearInNesting(t *testing.T) {
	for _, n := range []int{1000, 16000} {
		a, b := deepBodies(n / 2) // {"a":[ is two levels
		d := Diff(a, b)
		require.NotNil(t, d)
		assert.Equal(t, strings.Repeat("a[0].", n/2-1)+"a[0]", d.Path)
		steps := 0
		assert.Equal(t, d.Path, pathAt(a, d.Offset, &steps))
		assert.LessOrEqual(t, steps, 2*len(a), "bytes read for a body of %d bytes nested %d deep", len(a), n)
	}
}

// TestPathAtMatchesReference checks the linear PathAt against the former
// recursive one at every offset of the golden request bodies and of
// malformed cuts of them.
func TestPathAtMatchesReference(t *testing.T) {
	files, err := filepath.Glob("../../../testdata/golden/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	bodies := [][]byte{[]byte(`{"a":[1, {"b" : "x\"y"} , []],"c":{}}`), []byte(` [ {"k":1} , 2 ]`), []byte(`"s"`), []byte(`{"a":`), []byte(`{"a" "b"}`), []byte(`[1,,]`)}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		if len(b) > 2500 {
			b = b[:2500] // cut: malformed, and every offset stays cheap to check
		}
		bodies = append(bodies, b)
	}
	for _, b := range bodies {
		for off := 0; off <= len(b); off++ {
			if got, want := PathAt(b, off), pathAtReference(b, off); got != want {
				t.Fatalf("PathAt(%.60q…, %d) = %q, the reference says %q", b, off, got, want)
			}
		}
	}
}

// BenchmarkDiffDeep diffs two ~32 KB bodies nested 16,000 deep, and in
// the same loop two flat bodies of the same size, and reports the ratio
// of their times (deep-over-flat): near 1 when Diff is linear in its
// input whatever the nesting.
func BenchmarkDiffDeep(b *testing.B) {
	da, db := deepBodies(8000)
	fa := []byte(`{"a":[` + strings.Repeat(`1,`, (len(da)-8)/2) + `1]}`)
	fb := []byte(`{"a":[` + strings.Repeat(`1,`, (len(da)-8)/2) + `2]}`)
	b.ReportAllocs()
	var deep, flat time.Duration
	for b.Loop() {
		t0 := time.Now()
		Diff(da, db)
		t1 := time.Now()
		Diff(fa, fb)
		deep, flat = deep+t1.Sub(t0), flat+time.Since(t1)
	}
	b.ReportMetric(float64(deep)/float64(flat), "deep-over-flat")
}

// pathAtReference is the former PathAt, recursive, kept to check the linear one against: it returns the JSON path of the innermost value of body that holds
// byte off, for example "tools[3].function.description". Malformed JSON
// gives the path as far as it could be followed.
func pathAtReference(body []byte, off int) string {
	var sb strings.Builder
	walkReference(body, skipWS(body, 0), off, &sb)
	return sb.String()
}

func walkReference(b []byte, i, off int, path *strings.Builder) {
	if i >= len(b) {
		return
	}
	switch b[i] {
	case '{':
		eachMember(b, i, func(key string, k, v, e int) bool {
			if off >= e {
				return true // off lies further on
			}
			if off < k {
				return false // between members
			}
			if path.Len() > 0 {
				path.WriteByte('.')
			}
			path.WriteString(key)
			if off >= v {
				walkReference(b, v, off, path)
			}
			return false
		})
	case '[':
		idx := 0
		pos := skipWS(b, i+1)
		for pos < len(b) && b[pos] != ']' {
			end := valueEnd(b, pos)
			if off < end {
				if off >= pos {
					path.WriteString("[" + strconv.Itoa(idx) + "]")
					walkReference(b, pos, off, path)
				}
				return
			}
			pos = skipWS(b, end)
			if pos < len(b) && b[pos] == ',' {
				pos = skipWS(b, pos+1)
			}
			idx++
		}
	}
}

// FuzzPathAt checks the linear PathAt against the former recursive one at
// any offset of valid JSON (request bodies; on other bytes the two may
// follow malformed input differently, and only the bound is checked),
// and its bound on the bytes it reads on any bytes.
func FuzzPathAt(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"x"}],"c":{}}`), uint16(12))
	f.Add([]byte(`{"a" "b"}`), uint16(1))
	f.Add([]byte(`[[[[{"k":[1,,]}`), uint16(9))
	f.Fuzz(func(t *testing.T, b []byte, off uint16) {
		o := int(off) % (len(b) + 1)
		steps := 0
		got := pathAt(b, o, &steps)
		if want := pathAtReference(b, o); json.Valid(b) && got != want {
			t.Fatalf("PathAt(%q, %d) = %q, the reference says %q", b, o, got, want)
		}
		if steps > 2*len(b)+2 {
			t.Fatalf("%d bytes read for %d bytes of input", steps, len(b))
		}
	})
}

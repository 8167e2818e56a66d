// Package requesttest helps harness authors test the bytes their requests
// send, in the style of net/http/httptest: one line asserts that the turns
// of a conversation share their cached prefix, [Diff] finds the first byte
// where two request bodies part and names the JSON section it sits in
// (tools[3].function.description, say), and [Golden] compares a body with
// a file under testdata/, rewritten with -update.
package requesttest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// excerpt is how many bytes of context a [Difference] shows on each side.
const excerpt = 40

func init() {
	// A test binary may already define -update (its own golden files);
	// then this package reads that flag instead of defining a second one.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files instead of comparing with them")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Difference is where two request bodies part.
type Difference struct {
	// Offset is the first differing byte (the shorter length when one body
	// is a prefix of the other).
	Offset int
	// Path is the JSON path, in the first body, of the innermost value
	// holding Offset: "tools[3].function.description", "messages[2]".
	// Empty when the bodies differ at the top level.
	Path string
	// A and B are short excerpts of each body around Offset.
	A, B string
}

// String reports the difference in one readable paragraph.
func (d *Difference) String() string {
	if d == nil {
		return "no difference"
	}
	path := d.Path
	if path == "" {
		path = "(top level)"
	}
	return fmt.Sprintf("bodies differ at byte %d, in %s:\n  a: %s\n  b: %s", d.Offset, path, strconv.Quote(d.A), strconv.Quote(d.B))
}

// Diff returns where a and b first differ, or nil when they are equal.
func Diff(a, b []byte) *Difference {
	n := min(len(a), len(b))
	off := n
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			off = i
			break
		}
	}
	if off == n && len(a) == len(b) {
		return nil
	}
	src := a
	if off >= len(a) {
		src = b
	}
	return &Difference{Offset: off, Path: PathAt(src, off), A: around(a, off), B: around(b, off)}
}

func around(b []byte, off int) string {
	lo, hi := max(0, off-excerpt), min(len(b), off+excerpt)
	if lo > hi {
		return ""
	}
	return string(b[lo:hi])
}

// PrefixLen returns the length of a request body's cacheable prefix: every
// byte before the first conversation message — model, extra fields,
// system and tools (for OpenAI Chat, the leading system messages too). It
// returns -1 when body is not a request this library knows.
func PrefixLen(body []byte) int {
	i := skipWS(body, 0)
	if i >= len(body) || body[i] != '{' {
		return -1
	}
	found := -1
	eachMember(body, i, func(key string, _, v, _ int) bool {
		if key != "messages" && key != "input" {
			return true
		}
		found = v
		return false
	})
	if found < 0 || found >= len(body) || body[found] != '[' {
		return -1
	}
	// Skip leading system messages (OpenAI Chat keeps system in messages).
	pos := skipWS(body, found+1)
	for pos < len(body) && body[pos] == '{' {
		end := valueEnd(body, pos)
		system := false
		eachMember(body, pos, func(key string, _, v, e int) bool {
			if key == "role" {
				system = string(body[v:e]) == `"system"`
				return false
			}
			return true
		})
		if !system {
			break
		}
		pos = skipWS(body, end)
		if pos < len(body) && body[pos] == ',' {
			pos = skipWS(body, pos+1)
		}
	}
	return pos
}

// AssertStablePrefix checks that every body has the same prefix (see
// [PrefixLen]) as the first: the promise that each turn of a conversation
// hits the provider's prefix cache. On failure it reports the first
// differing byte and its JSON path, and returns false.
func AssertStablePrefix(t testing.TB, bodies ...[]byte) bool {
	t.Helper()
	if len(bodies) == 0 {
		return true
	}
	n0 := PrefixLen(bodies[0])
	if n0 < 0 {
		t.Errorf("requesttest: body 0 is not a request body (no messages or input array)")
		return false
	}
	ok := true
	for i, b := range bodies[1:] {
		n := PrefixLen(b)
		if n < 0 {
			t.Errorf("requesttest: body %d is not a request body (no messages or input array)", i+1)
			ok = false
			continue
		}
		if d := Diff(bodies[0][:n0], b[:n]); d != nil {
			t.Errorf("requesttest: the prefix of body %d differs from body 0's: %s", i+1, d)
			ok = false
		}
	}
	return ok
}

// Golden compares got with the file at path; with -update it writes got
// to the file instead. A mismatch reports the first differing byte and
// its JSON path.
func Golden(t testing.TB, path string, got []byte) bool {
	t.Helper()
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("requesttest: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("requesttest: %v", err)
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("requesttest: %v (run the test with -update to create it)", err)
		return false
	}
	if bytes.Equal(want, got) {
		return true
	}
	t.Errorf("requesttest: %s does not match (run with -update if the change is intended): %s", path, Diff(want, got))
	return false
}

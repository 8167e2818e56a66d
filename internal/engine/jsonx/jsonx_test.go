package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
)

var stringSeeds = []string{
	"", "plain", `q"uote\back`, "a\bb\fc\nd\re\tf\x00\x01\x1f", "<&>", "\u2028\u2029",
	"é 截图 🙂", "\xff\xfe bad", "</user_query>",
}

// FuzzAppendString: the zero-allocation encoder writes exactly what
// encoding/json writes with SetEscapeHTML(false), for any string.
func FuzzAppendString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json gives %s", s, got, want)
		}
	})
}

// FuzzAppendCompact: for valid JSON, AppendCompact equals json.Compact.
func FuzzAppendCompact(f *testing.F) {
	for _, s := range []string{`{ "a" : [1, 2 ,"x y"] }`, "\t[ ]\n", `" sp\" ace "`, `{"k":{"n":null , "t":true}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !json.Valid(v) {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, v); err != nil {
			t.Fatal(err)
		}
		if got := AppendCompact(nil, v); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("AppendCompact(%q) = %q, json.Compact gives %q", v, got, want.Bytes())
		}
	})
}

func TestAppendStringDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not the code's under the race detector")
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { _ = AppendString(buf[:0], "a \"quoted\" <tag>\n é") }); n != 0 {
		t.Fatalf("AppendString allocated %v times", n)
	}
}

func TestDeeperThan(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want bool
	}{
		{`{}`, 1, false},
		{`{"a":[1]}`, 1, true},
		{`{"a":[1]}`, 2, false},
		{`{"a":"[[[[["}`, 1, false},  // brackets inside a string do not nest
		{`{"a":"\"[[[["}`, 1, false}, // nor after an escaped quote
		{`{"a":"\\"}`, 1, false},     // an escaped backslash ends the escape
		{`[[[]]] [[[]]]`, 3, false},  // siblings do not add up
		{`[[[[`, 3, true},            // unclosed input counts as it goes
	} {
		if got := DeeperThan([]byte(c.in), c.max); got != c.want {
			t.Errorf("DeeperThan(%s, %d) = %v, want %v", c.in, c.max, got, c.want)
		}
	}
}

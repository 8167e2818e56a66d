package jsonx

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzFoldEqual checks FoldEqual against encoding/json itself: a key sets
// a field of a struct exactly when it equals the field's name or
// FoldEqual says so.
func FuzzFoldEqual(f *testing.F) {
	for _, s := range [][2]string{{"TYPE", "type"}, {"\u017fession", "session"}, {"\u212aind", "kind"}, {"Role", "role"}, {"type", "typo"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, key, name string) {
		name = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return -1
		}, name)
		if name == "" {
			return
		}
		typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(`json:"` + name + `"`)}})
		k, err := json.Marshal(key)
		if err != nil {
			return
		}
		v := reflect.New(typ)
		if json.Unmarshal([]byte(`{`+string(k)+`:1}`), v.Interface()) != nil {
			return
		}
		set := v.Elem().Field(0).Int() == 1
		var unq string
		_ = json.Unmarshal(k, &unq)
		if got := unq == name || FoldEqual([]byte(unq), name); got != set {
			t.Fatalf("key %q, field %q: encoding/json sets it: %v, FoldEqual: %v", unq, name, set, got)
		}
	})
}

// FuzzEachMember checks EachMember against encoding/json on valid JSON
// objects: the same keys, in order, and values that are valid JSON.
func FuzzEachMember(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[{"c":"}"}],"\u0041":null}`))
	f.Add([]byte(` { } `))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m == nil {
			_ = EachMember(b, func(_, _ []byte) error { return nil })
			return
		}
		n := 0
		err := EachMember(b, func(key, value []byte) error {
			if _, ok := m[string(key)]; !ok {
				t.Fatalf("key %q not in %s", key, b)
			}
			if !json.Valid(value) {
				t.Fatalf("value %q of %q is not valid JSON", value, key)
			}
			n++
			return nil
		})
		if err != nil || n < len(m) {
			t.Fatalf("EachMember(%s): %d members, err %v; encoding/json: %d", b, n, err, len(m))
		}
	})
}

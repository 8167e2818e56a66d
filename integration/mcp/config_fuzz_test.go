package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// FuzzParseConfig: whatever the bytes, ParseConfig returns servers or an
// error wrapping ErrConfig, never panics; servers come sorted by name,
// each named in the file's mcpServers object and passing the Manager's
// own check; and a file with a key given twice in one object is never
// accepted (checked against an independent reading: decoding the file
// into maps and re-encoding it loses a duplicate, so the object counts
// differ).
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers":{"a":{"command":"npx","args":["-y","x"],"env":{"K":"${V:-d}"}}}}`,
		`{"mcpServers":{"web":{"type":"http","url":"https://h/mcp","headers":{"Authorization":"Bearer ${KEY:-none}"}}}}`,
		`{"mcpServers":{"a":{"command":"x","disabled":true},"b":{"url":"http://h/"}}}`,
		`{"mcpServers":{"a":{"command":"safe"},"a":{"command":"sh"}}}`,
		`{"mcpServers":{"s":{"command":"x","env":{"P":"1","P":"2"}}}}`,
		`{"mcpServers":{"s":{"command":"x","alwaysAllow":[{"k":1,"k":2}]}}}`,
		`{"mcpServers":{"s":{"command":"safe","comm\u0061nd":"sh"}}}`,
		`{"mcpServers":[]}`, `{`, `[]`, `{"mcpServers":{"a":{"type":"sse","url":"http://h/"}}}`,
	} {
		f.Add([]byte(s))
	}
	getenv := func(k string) (string, bool) {
		if k == "V" || k == "KEY" {
			return "v", true
		}
		return "", false
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		srvs, err := ParseConfig(data, &ConfigOptions{Getenv: getenv})
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error not wrapping ErrConfig: %v", err)
			}
			return
		}
		if free := dupFree(data); free != nil && !*free {
			t.Fatalf("accepted a file with a duplicate key: %q", data)
		}
		var file struct {
			Servers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatalf("accepted bytes encoding/json refuses: %v", err)
		}
		names := make([]string, len(srvs))
		for i, s := range srvs {
			names[i] = s.Name
			if _, ok := file.Servers[s.Name]; !ok {
				t.Fatalf("server %q is not in the file", s.Name)
			}
			if err := s.check(); err != nil {
				t.Fatalf("server %q fails its check: %v", s.Name, err)
			}
		}
		if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
			t.Fatalf("names not sorted and unique: %q", names)
		}
	})
}

// dupFree reports whether every object of data has distinct keys: the
// members internal/engine/jsonx's scanner walks, against the entries
// encoding/json's maps keep (a duplicate, however spelled, is one entry).
// It is nil when data is not JSON.
func dupFree(data []byte) *bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	var walk func(raw []byte) int
	walk = func(raw []byte) int {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		n := 0
		switch {
		case len(raw) > 0 && raw[0] == '{':
			_ = jsonx.EachMember(raw, func(_, val []byte) error { n += 1 + walk(val); return nil })
		case len(raw) > 0 && raw[0] == '[':
			_ = jsonx.EachElement(raw, func(val []byte) error { n += walk(val); return nil })
		}
		return n
	}
	var kept func(v any) int
	kept = func(v any) int {
		n := 0
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				n += 1 + kept(e)
			}
		case []any:
			for _, e := range x {
				n += kept(e)
			}
		}
		return n
	}
	ok := walk(data) == kept(v)
	return &ok
}

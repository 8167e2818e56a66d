package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"testing"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// FuzzParse: whatever the bytes, Parse returns servers or an error
// wrapping ErrInvalid, never panics; servers come sorted by name, each
// named in the file's mcpServers object, each a stdio server (a command)
// or an HTTP one (an http or https URL) unless disabled; a file with a key
// given twice in one object is never accepted (checked against an
// independent reading: decoding the file into maps and re-encoding it
// loses a duplicate, so the object counts differ); and what Parse accepts,
// encoding/json reads the same way — its case-folding struct decoding
// finds the same command, args and url — so no reader of an accepted file
// can run another command than the one Parse returned.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers":{"a":{"command":"npx","args":["-y","x"],"env":{"K":"${V:-d}"}}}}`,
		`{"mcpServers":{"web":{"type":"http","url":"https://h/mcp","headers":{"Authorization":"Bearer ${KEY:-none}"}}}}`,
		`{"mcpServers":{"a":{"command":"x","disabled":true},"b":{"url":"http://h/"}}}`,
		`{"mcpServers":{"a":{"command":"safe"},"a":{"command":"sh"}}}`,
		`{"mcpServers":{"s":{"command":"x","env":{"P":"1","P":"2"}}}}`,
		`{"mcpServers":{"s":{"command":"x","alwaysAllow":[{"k":1,"k":2}]}}}`,
		`{"mcpServers":{"s":{"command":"safe","comm\u0061nd":"sh"}}}`,
		`{"mcpServers":{"s":{"command":"true","Command":"sh","args":["-c","x"]}}}`,
		`{"mcpServers":{"s":{"COMMAND":"sh"}}}`,
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
		srvs, err := Parse(data, &Options{Getenv: getenv})
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error not wrapping ErrInvalid: %v", err)
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
			raw, ok := file.Servers[s.Name]
			if !ok {
				t.Fatalf("server %q is not in the file", s.Name)
			}
			checkServer(t, s, raw)
		}
		if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
			t.Fatalf("names not sorted and unique: %q", names)
		}
	})
}

// checkServer holds s to its shape and to encoding/json's reading of the
// entry it came from: the same fields, and the same values where the
// entry has no ${VAR} reference to expand.
func checkServer(t *testing.T, s Server, raw json.RawMessage) {
	var std struct {
		Command  string   `json:"command"`
		Args     []string `json:"args"`
		URL      string   `json:"url"`
		Disabled bool     `json:"disabled"`
	}
	if err := json.Unmarshal(raw, &std); err != nil {
		t.Fatalf("server %q: encoding/json refuses an accepted entry: %v", s.Name, err)
	}
	if std.Disabled != s.Disabled {
		t.Fatalf("server %q: disabled %v, encoding/json reads %v", s.Name, s.Disabled, std.Disabled)
	}
	if s.Disabled {
		return
	}
	switch {
	case len(s.Command) > 0:
		if s.URL != "" || s.Headers != nil || std.Command == "" || len(s.Command) != 1+len(std.Args) {
			t.Fatalf("server %q: stdio %q, encoding/json reads command %q args %q", s.Name, s.Command, std.Command, std.Args)
		}
		if !bytes.Contains(raw, []byte("${")) && !slices.Equal(s.Command, append([]string{std.Command}, std.Args...)) {
			t.Fatalf("server %q: runs %q, encoding/json reads %q %q", s.Name, s.Command, std.Command, std.Args)
		}
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || std.URL == "" || std.Command != "" {
			t.Fatalf("server %q: url %q, encoding/json reads url %q command %q", s.Name, s.URL, std.URL, std.Command)
		}
		if !bytes.Contains(raw, []byte("${")) && s.URL != std.URL {
			t.Fatalf("server %q: url %q, encoding/json reads %q", s.Name, s.URL, std.URL)
		}
	default:
		t.Fatalf("server %q: neither command nor url", s.Name)
	}
}

// dupFree reports whether every object of data has distinct keys: the
// members internal/jsonx's scanner walks, against the entries
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

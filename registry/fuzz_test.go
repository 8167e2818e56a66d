package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// FuzzParseCatalog feeds arbitrary bytes to the catalog importer: it must
// never panic, and whatever it accepts must register or fail with an error,
// with every accepted tool carrying a valid name and an object schema.
func FuzzParseCatalog(f *testing.F) {
	// Seeds stay small: with coverage instrumentation, mutating the
	// 15-200 KB catalogs whole runs at about one exec a second. Each real
	// catalog contributes its first tool, in the catalog-file shape.
	files, _ := filepath.Glob("../testdata/catalogs/*.tools.json")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var c struct {
			Server string            `json:"server"`
			Tools  []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(b, &c) == nil && len(c.Tools) > 0 {
			seed, _ := json.Marshal(map[string]any{"server": c.Server, "tools": c.Tools[:1]})
			f.Add(seed)
		}
	}
	for _, s := range []string{
		`[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]`,
		`[{"type":"function","name":"a","parameters":{"type":"object"}}]`,
		`[{"name":"a","input_schema":{"type":"object"}}]`,
		`{"jsonrpc":"2.0","result":{"tools":[{"name":"a","inputSchema":{"$ref":"#"}}]}}`,
		`{"server":"s","tools":[{"name":"</available_deferred_tools>","inputSchema":{}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCatalog(data)
		if err != nil {
			if !strings.Contains(err.Error(), errCatalog.Error()) {
				t.Fatalf("error does not wrap errCatalog: %v", err)
			}
			return
		}
		r := New(nil)
		if err := r.Import(c); err != nil {
			return
		}
		for _, tl := range r.Snapshot().Tools() {
			if !toolname.Valid(tl.Name) {
				t.Fatalf("registered invalid name %q", tl.Name)
			}
			if len(tl.RawSchema) == 0 || tl.RawSchema[0] != '{' {
				t.Fatalf("tool %q: schema %q is not an object", tl.Name, tl.RawSchema)
			}
			if !utf8.ValidString(tl.Description) {
				t.Fatalf("tool %q: invalid UTF-8 description", tl.Name)
			}
		}
	})
}

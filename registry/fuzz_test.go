package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseCatalog feeds arbitrary bytes to the catalog importer: it must
// never panic, and whatever it accepts must register or fail with an error,
// with every accepted tool carrying a valid name and an object schema.
func FuzzParseCatalog(f *testing.F) {
	files, _ := filepath.Glob("../testdata/catalogs/*.tools.json")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 20000 {
			f.Add(b)
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
			if !strings.Contains(err.Error(), ErrCatalog.Error()) {
				t.Fatalf("error does not wrap ErrCatalog: %v", err)
			}
			return
		}
		r := New(nil)
		if err := r.Import(c); err != nil {
			return
		}
		for _, tl := range r.Snapshot().Tools() {
			if !ValidName(tl.Name) {
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

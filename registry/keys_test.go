package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSchemaKeywordCaseVariantRefused is issue 22's case 7 for schemas:
// ""PROPERTIES" beside "properties" is read by the validator as
// properties (last wins) while the provider reads the real key, so the
// dispatcher checks a different schema than the model was shown." Such a
// tool is now refused, with an error that names the tool and the path;
// property names and data that only look like keywords are not keywords
// and pass.
func TestSchemaKeywordCaseVariantRefused(t *testing.T) {
	refused := map[string]struct{ schema, path string }{
		"PROPERTIES beside properties": {`{"type":"object","properties":{"path":{"type":"string"}},"PROPERTIES":{"path":{"type":"integer"}}}`, "/PROPERTIES"},
		"Required nested":              {`{"type":"object","properties":{"a":{"type":"object","Required":["x"]}}}`, "/properties/a/Required"},
		"in anyOf":                     {`{"type":"object","anyOf":[{"required":["a"]},{"MaxLength":3}]}`, "/anyOf/1/MaxLength"},
		"in items":                     {`{"type":"object","properties":{"l":{"type":"array","items":{"TYPE":"integer","type":"string"}}}}`, "/properties/l/items/TYPE"},
		"in $defs":                     {`{"type":"object","$defs":{"x":{"Enum":[1]}},"properties":{"a":{"$ref":"#/$defs/x"}}}`, "/$defs/x/Enum"},
		"keyword twice":                {`{"type":"object","properties":{"a":{"type":"string"}},"properties":{"a":{"type":"integer"}}}`, "/properties"},
		"long s folds to s":            {`{"type":"object","propertie\u017f":{"a":{"type":"integer"}}}`, "/propertie"},
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			r := New(nil)
			err := r.Register(Tool{Name: "Edit", Description: "Edit a file.", RawSchema: json.RawMessage(c.schema)})
			require.Error(t, err)
			assert.ErrorIs(t, err, errInvalidSchema)
			assert.Contains(t, err.Error(), `tool "Edit"`)
			assert.Contains(t, err.Error(), "at "+c.path)
		})
	}
	accepted := []string{
		`{"type":"object","properties":{"Type":{"type":"string"},"PROPERTIES":{"type":"string"},"type":{"type":"integer"}}}`,
		`{"type":"object","properties":{"o":{"type":"object","enum":[{"TYPE":1,"type":2}],"default":{"Required":true}}}}`,
		`{"type":"object","properties":{"a":true,"b":false},"x-Items":1}`,
	}
	for _, s := range accepted {
		assert.NoError(t, New(nil).Register(Tool{Name: "Edit", Description: "Edit a file.", RawSchema: json.RawMessage(s)}), s)
	}
}

// TestCatalogsHaveNoKeywordCaseVariants: no tool of the catalogs under
// testdata/ is refused by the exact-keyword check.
func TestCatalogsHaveNoKeywordCaseVariants(t *testing.T) {
	files, err := filepath.Glob("../testdata/catalogs/*.tools.json")
	require.NoError(t, err)
	more, _ := filepath.Glob("../testdata/benchmarks/*/catalog.json")
	files = append(files, more...)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		c, err := ParseCatalog(data)
		require.NoError(t, err, f)
		for _, rej := range c.Rejected {
			assert.NotContains(t, rej.Err.Error(), "case variant", "%s: %s", f, rej.Name)
			assert.NotContains(t, rej.Err.Error(), "appears twice", "%s: %s", f, rej.Name)
		}
	}
}

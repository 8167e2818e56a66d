package registry

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustTool(t *testing.T, s *Snapshot, name string) *Tool {
	t.Helper()
	tool, ok := s.Tool(name)
	require.True(t, ok, name)
	return tool
}

// Schemas issue 11 refused, which cannot crash or hang a call: each is
// imported, the keyword at fault is left out of validation and listed as a
// warning, and the provider is sent the schema as written. Those that
// break JSON Schema's own rules (a misspelt type, draft-03's boolean
// required), which a provider refuses, Register refuses (issue 48) with
// the keyword's JSON path; Import keeps taking them from the wild.
func TestUnvalidatableKeywordsAreWarnings(t *testing.T) {
	cases := []struct {
		name, schema string
		want         Warning
	}{
		{"misspelt type", `{"type":"object","properties":{"a":{"type":"strng"}}}`,
			Warning{Path: "/properties/a", Keyword: "type", Reason: "not a JSON Schema type (null, boolean, object, array, number, integer, string); left out of validation"}},
		{"dangling $ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}}}`,
			Warning{Path: "/properties/a", Keyword: "$ref", Reason: `"#/$defs/nope" does not lead to a schema inside the tool's schema; left out of validation`}},
		{"bad pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`,
			Warning{Path: "/properties/a", Keyword: "pattern", Reason: `"(": not an ECMA-262 regular expression: unterminated group at offset 1; left out of validation and sent as written`}},
		{"lookahead", `{"type":"object","properties":{"p":{"type":"string","pattern":"^(?=.*\\d).{8,}$"}}}`,
			Warning{Path: "/properties/p", Keyword: "pattern", Reason: `"^(?=.*\\d).{8,}$": no exact RE2 equivalent: lookahead (?= or (?! ); left out of validation and sent as written`}},
		{"draft-03 required", `{"type":"object","properties":{"a":{"type":"string","required":true}}}`,
			Warning{Path: "/properties/a", Keyword: "required", Reason: "the value is not an array of strings; left out of validation"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := New(nil)
			refused := c.want.Keyword == "type" || c.want.Keyword == "required"
			err := r.Register(Tool{Name: "x", RawSchema: json.RawMessage(c.schema)})
			if refused {
				require.ErrorIs(t, err, ErrSchemaRefused)
				assert.Contains(t, err.Error(), `tool "x": `+c.want.Path+"/"+c.want.Keyword+": ")
				cat, err := ParseCatalog([]byte(`[{"name":"x","description":"d","input_schema":` + c.schema + `}]`))
				require.NoError(t, err)
				require.NoError(t, r.Import(cat), "Import takes it from the wild")
			} else {
				require.NoError(t, err)
			}
			want := c.want
			want.Tool = "x"
			assert.Equal(t, []Warning{want}, r.Warnings())
			assert.Equal(t, c.schema, string(mustTool(t, r.Snapshot(), "x").RawSchema), "sent as written")
			assert.NotContains(t, want.String(), "jsonschema")
		})
	}
}

// TestRegisterRefusesSchemasProvidersRefuse: the two schemas, and
// a keyword value of the wrong type deep in the schema, are refused at
// Register with the keyword's JSON path, nothing registered; the same
// tools in a catalog import with a warning.
func TestRegisterRefusesSchemasProvidersRefuse(t *testing.T) {
	for schema, path := range map[string]string{
		`{"type":"object","properties":{"n":{"type":"integr"}}}`:                                        "/properties/n/type",
		`{"type":"object","properties":{"path":{"type":"string"}},"required":"path"}`:                   "/required",
		`{"type":"object","properties":{"l":{"type":"array","items":{"type":"number","minimum":"0"}}}}`: "/properties/l/items/minimum",
		`{"type":"object","properties":{"e":{"enum":"a"}}}`:                                             "/properties/e/enum",
	} {
		r := New(nil)
		err := r.Register(Tool{Name: "ok", RawSchema: json.RawMessage(`{"type":"object"}`)}, Tool{Name: "bad", RawSchema: json.RawMessage(schema)})
		require.Error(t, err, schema)
		assert.ErrorIs(t, err, ErrSchemaRefused)
		assert.Contains(t, err.Error(), `tool "bad": `+path+": ")
		assert.Empty(t, r.Snapshot().Tools(), "all or none")

		cat, err := ParseCatalog([]byte(`{"server":"wild","tools":[{"name":"bad","inputSchema":` + schema + `}]}`))
		require.NoError(t, err)
		require.NoError(t, r.Import(cat))
		assert.Len(t, r.Warnings(), 1, schema)
	}
}

// The error a refused tool gets is in the library's words: it names the
// tool and the schema path, never a Go type.
func TestRefusalInOurWords(t *testing.T) {
	err := New(nil).Register(Tool{Name: "loop", RawSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}}`)})
	require.ErrorIs(t, err, errInvalidSchema)
	assert.Contains(t, err.Error(), `tool "loop"`)
	assert.Contains(t, err.Error(), "/properties/")
	for _, bad := range []string{"json: cannot unmarshal", "schemaWithoutMethods", "Go struct", "jsonschema.Schema"} {
		assert.NotContains(t, err.Error(), bad)
	}
}

// pdf-reader-mcp's read_pdf says "exclusiveMinimum": true (draft-04): it
// was refused with "json: cannot unmarshal bool into Go struct field
// .schemaWithoutMethods...".
func TestDraft04ExclusiveMinimumImports(t *testing.T) {
	c, err := ParseCatalog([]byte(`{"server":"pdf","tools":[{"name":"read_pdf","inputSchema":{"type":"object","properties":{"pages":{"type":"array","items":{"type":"integer","minimum":0,"exclusiveMinimum":true}}}}}]}`))
	require.NoError(t, err)
	assert.Empty(t, c.Rejected)
	assert.Empty(t, c.warnings(), "an exact translation is no warning")
	r := New(nil)
	require.NoError(t, r.Import(c))
	assert.Empty(t, r.Rejected())
}

// Warnings are listed in the same order whatever order tools registered in.
func TestWarningsDeterministic(t *testing.T) {
	tools := []Tool{
		{Name: "a", RawSchema: json.RawMessage(`{"type":"object","properties":{"x":{"pattern":"(?!a)"},"y":{"pattern":"\\1"}}}`)},
		{Name: "b", RawSchema: json.RawMessage(`{"type":"object","properties":{"z":{"$ref":"#/nope"}}}`)},
		{Name: "c", RawSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
	}
	var first []Warning
	for range 10 {
		rand.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		r := New(nil)
		require.NoError(t, r.Register(tools...))
		if first == nil {
			first = r.Warnings()
			require.Len(t, first, 3)
			continue
		}
		assert.Equal(t, first, r.Warnings())
	}
}

// warnings returns the warnings of the catalog's tools, in file order
// (each tool's Warnings).
func (c *Catalog) warnings() []Warning {
	var out []Warning
	for _, t := range c.Tools {
		out = append(out, t.Warnings...)
	}
	return out
}

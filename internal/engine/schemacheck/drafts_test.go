package schemacheck

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prepared resolves raw through Prepare, requiring no error.
func prepared(t *testing.T, raw string) (*jsonschema.Resolved, []Note) {
	t.Helper()
	s, notes, err := Prepare([]byte(raw))
	require.NoError(t, err)
	r, err := s.Resolve(nil)
	require.NoError(t, err)
	return r, notes
}

func valid(r *jsonschema.Resolved, doc string) bool {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		panic(err)
	}
	return r.Validate(v) == nil
}

// Each row is a draft or dialect form and documents it must accept and
// refuse once read in 2020-12 terms; notes is how many warnings it gives.
var draftForms = []struct {
	name, schema string
	accept       []string
	refuse       []string
	notes        int
}{
	{"ECMA \\u range (Chinese only)", `{"type":"object","properties":{"s":{"type":"string","pattern":"^[\\u4e00-\\u9fa5]+$"}}}`,
		[]string{`{"s":"中文"}`}, []string{`{"s":"Latin"}`, `{"s":"中a"}`}, 0},
	{"draft-04 exclusiveMinimum: true", `{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`,
		[]string{`{"n":1}`, `{"n":0.001}`}, []string{`{"n":0}`, `{"n":-1}`}, 0},
	{"draft-04 exclusiveMaximum: true", `{"type":"object","properties":{"n":{"maximum":10,"exclusiveMaximum":true}}}`,
		[]string{`{"n":9}`}, []string{`{"n":10}`}, 0},
	{"draft-04 exclusiveMinimum: false", `{"type":"object","properties":{"n":{"minimum":0,"exclusiveMinimum":false}}}`,
		[]string{`{"n":0}`}, []string{`{"n":-1}`}, 0},
	{"#/definitions/x ref", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/x"}},"definitions":{"x":{"type":"string","minLength":2}}}`,
		[]string{`{"a":"ok"}`}, []string{`{"a":"k"}`, `{"a":3}`}, 0},
	{"definitions and $defs together", `{"type":"object","properties":{"a":{"$ref":"#/definitions/x"},"b":{"$ref":"#/$defs/y"}},"definitions":{"x":{"type":"string"}},"$defs":{"y":{"type":"integer"}}}`,
		[]string{`{"a":"s","b":1}`}, []string{`{"a":1}`, `{"b":"s"}`}, 0},
	{"draft-04 id and a ref through it", `{"$schema":"http://json-schema.org/draft-04/schema#","id":"http://example.com/s.json","type":"object","properties":{"a":{"$ref":"http://example.com/s.json#/definitions/x"}},"definitions":{"x":{"type":"boolean"}}}`,
		[]string{`{"a":true}`}, []string{`{"a":"no"}`}, 0},
	{"draft-07 $id anchor", `{"type":"object","properties":{"a":{"$ref":"#pos"}},"definitions":{"p":{"$id":"#pos","type":"integer","minimum":1}}}`,
		[]string{`{"a":1}`}, []string{`{"a":0}`}, 0},
	{"dependencies (both forms)", `{"type":"object","dependencies":{"card":["billing"],"vip":{"required":["level"]}}}`,
		[]string{`{"card":1,"billing":2}`, `{"vip":1,"level":2}`, `{}`}, []string{`{"card":1}`, `{"vip":1}`}, 0},
	{"array-form items and additionalItems", `{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`,
		[]string{`{"t":["a",1]}`, `{"t":["a"]}`}, []string{`{"t":[1,"a"]}`, `{"t":["a",1,2]}`}, 0},
	{"additionalItems beside schema items is ignored", `{"type":"object","properties":{"t":{"items":{"type":"string"},"additionalItems":false}}}`,
		[]string{`{"t":["a","b"]}`}, []string{`{"t":[1]}`}, 0},
	{"draft-07 ignores $ref siblings", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/s","maxLength":1}},"definitions":{"s":{"type":"string"}}}`,
		[]string{`{"a":"long"}`}, []string{`{"a":1}`}, 0},
	{"2019-09 $schema", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"a":{"type":"integer"}}}`,
		[]string{`{"a":1}`}, []string{`{"a":"x"}`}, 0},
	{"unknown format is an annotation", `{"type":"object","properties":{"a":{"type":"string","format":"chinese-phone"}}}`,
		[]string{`{"a":"anything"}`}, []string{`{"a":1}`}, 0},
	{"lookahead pattern: left out, the rest kept", `{"type":"object","properties":{"p":{"type":"string","minLength":8,"pattern":"^(?=.*\\d)"}}}`,
		[]string{`{"p":"abcdefgh"}`}, []string{`{"p":"short"}`, `{"p":8}`}, 1},
	{"untranslatable patternProperties key lifts additionalProperties", `{"type":"object","properties":{"o":{"type":"object","patternProperties":{"^(?!x)":{"type":"string"},"^n_\\d$":{"type":"integer"}},"additionalProperties":false}}}`,
		[]string{`{"o":{"y":"s","other":1}}`}, []string{`{"o":{"n_1":"s"}}`}, 1},
	{"patternProperties key translated", `{"type":"object","patternProperties":{"^\\u0078_":{"type":"integer"}},"additionalProperties":false}`,
		[]string{`{"x_1":1}`}, []string{`{"x_1":"s"}`, `{"y":1}`}, 0},
	{"remote $ref left out", `{"type":"object","properties":{"a":{"$ref":"https://example.invalid/x.json","type":"string"}}}`,
		[]string{`{"a":"s"}`}, []string{`{"a":1}`}, 1},
	{"unknown $schema", `{"$schema":"http://example.com/my-meta","type":"object","properties":{"a":{"type":"string"}}}`,
		[]string{`{"a":"s"}`}, []string{`{"a":1}`}, 1},
	{"minLength of the wrong type", `{"type":"object","properties":{"a":{"type":"string","minLength":"3"}}}`,
		[]string{`{"a":"s"}`}, []string{`{"a":1}`}, 1},
	{"whole numbers written as floats", `{"type":"object","properties":{"a":{"type":"string","maxLength":1e1,"minLength":2.0}}}`,
		[]string{`{"a":"ab"}`}, []string{`{"a":"a"}`, `{"a":"abcdefghijk"}`}, 0},
	{"integer enum beyond 2^53", `{"type":"object","properties":{"a":{"enum":[9007199254740993]}}}`,
		nil, []string{`{"a":1}`, `{"a":9007199254740992}`}, 0}, // exact: see TestPrepareBigNumbersExact
}

func TestPrepareDraftForms(t *testing.T) {
	for _, c := range draftForms {
		t.Run(c.name, func(t *testing.T) {
			r, notes := prepared(t, c.schema)
			assert.Len(t, notes, c.notes, "%v", notes)
			for _, d := range c.accept {
				assert.True(t, valid(r, d), "should accept %s", d)
			}
			for _, d := range c.refuse {
				assert.False(t, valid(r, d), "should refuse %s", d)
			}
		})
	}
}

// Before Prepare these forms broke the validator: jsonschema-go's own
// reading refuses or misreads them.
func TestPlainReadingFailsTheseForms(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","properties":{"s":{"type":"string","pattern":"^[\\u4e00-\\u9fa5]+$"}}}`,
		`{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`,
		`{"type":"object","properties":{"p":{"type":"string","pattern":"^(?=.*\\d)"}}}`,
	} {
		s := new(jsonschema.Schema)
		err := json.Unmarshal([]byte(raw), s)
		if err == nil {
			_, err = s.Resolve(nil)
		}
		assert.Error(t, err, raw)
	}
}

func TestPrepareLeavesRawAlone(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"n":{"minimum":0,"exclusiveMinimum":true},"p":{"pattern":"(?=a)"}}}`)
	keep := string(raw)
	_, _, err := Prepare(raw)
	require.NoError(t, err)
	assert.Equal(t, keep, string(raw))
}

func TestPrepareDeterministic(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"a":{"pattern":"(?=a)"},"b":{"pattern":"\\1"},"c":{"$ref":"#/x"},"d":{"minLength":"x"}},"dependencies":{"a":["b"]}}`)
	s0, n0, err := Prepare(raw)
	require.NoError(t, err)
	b0, _ := json.Marshal(s0)
	for range 20 {
		s, n, err := Prepare(raw)
		require.NoError(t, err)
		b, _ := json.Marshal(s)
		assert.Equal(t, string(b0), string(b))
		assert.Equal(t, n0, n)
	}
	assert.Len(t, n0, 4)
}

func TestPrepareStillRefusesCycles(t *testing.T) {
	_, _, err := Prepare([]byte(`{"type":"object","definitions":{"a":{"$ref":"#/definitions/b"},"b":{"$ref":"#/definitions/a"}},"properties":{"x":{"$ref":"#/definitions/a"}}}`))
	require.ErrorIs(t, err, ErrSchema)
	assert.Contains(t, err.Error(), "recurse forever")
	assert.Contains(t, err.Error(), "/definitions/")
}

// FuzzPrepare: whatever the bytes, Prepare returns an error or a schema
// that resolves, and never changes its input.
func FuzzPrepare(f *testing.F) {
	for _, c := range draftForms {
		f.Add([]byte(c.schema))
	}
	f.Add([]byte(`{"properties":{"a":{"items":[true,false],"additionalItems":{"$ref":"#/properties/a/items/0"}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		keep := string(raw)
		s, _, err := Prepare(raw)
		if string(raw) != keep {
			t.Fatal("Prepare changed its input")
		}
		if err != nil {
			return
		}
		if _, err := s.Resolve(nil); err != nil {
			t.Fatalf("a prepared schema does not resolve: %v", err)
		}
	})
}

// A schema the validator cannot read at all is validated as an object,
// with a warning; its root type stays visible to the registry's rule.
func TestPrepareFallback(t *testing.T) {
	s, notes, err := Prepare([]byte(`{"type":5,"properties":{"a":{"type":"string"}}}`))
	require.NoError(t, err)
	require.Len(t, notes, 1)
	assert.Equal(t, "", notes[0].Keyword)
	assert.Equal(t, "5", s.Type)
	assert.NotContains(t, notes[0].String(), "json:")
}

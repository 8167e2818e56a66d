package schemacheck

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, s string) *jsonschema.Schema {
	t.Helper()
	var sc jsonschema.Schema
	require.NoError(t, json.Unmarshal([]byte(s), &sc))
	return &sc
}

// The cycles of issue 11: each one, handed to jsonschema-go's validator,
// recursed until the process died of a stack overflow.
var inPlaceCycles = map[string]string{
	"root ref":          `{"type":"object","$ref":"#"}`,
	"allOf root":        `{"type":"object","allOf":[{"$ref":"#"}]}`,
	"property a->b->a":  `{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}}`,
	"defs a->b->a":      `{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
	"not self":          `{"type":"object","not":{"$ref":"#"}}`,
	"if/then self":      `{"type":"object","if":{"$ref":"#"},"then":{}}`,
	"dependentSchemas":  `{"type":"object","dependentSchemas":{"x":{"$ref":"#"}}}`,
	"anchor self":       `{"type":"object","$defs":{"a":{"$anchor":"A","oneOf":[{"$ref":"#A"}]}}}`,
	"dynamicRef":        `{"type":"object","$dynamicAnchor":"m","allOf":[{"$dynamicRef":"#m"}]}`,
	"escaped pointer":   `{"type":"object","$defs":{"a/b":{"$ref":"#/$defs/a~1b"}}}`,
	"draft-07 deps":     `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependencies":{"x":{"$ref":"#"}}}`,
	"unreachable defs":  `{"type":"object","definitions":{"a":{"$ref":"#/definitions/a"}}}`,
	"percent-escaped":   `{"type":"object","$defs":{"a b":{"$ref":"#/$defs/a%20b"}}}`,
	"else through defs": `{"type":"object","$defs":{"d":{"if":{"type":"string"},"else":{"$ref":"#"}}},"allOf":[{"$ref":"#/$defs/d"}]}`,
}

func TestCheckRejectsInPlaceCycles(t *testing.T) {
	for name, s := range inPlaceCycles {
		t.Run(name, func(t *testing.T) {
			err := Check(parse(t, s))
			require.ErrorIs(t, err, ErrSchema)
			assert.Contains(t, err.Error(), "recurse forever")
		})
	}
}

// Cycles through a keyword that moves into a member or element end with
// the instance: they are accepted, and a deep instance validates.
func TestCheckAcceptsConsumingCycles(t *testing.T) {
	for name, s := range map[string]string{
		"tree":           `{"type":"object","properties":{"child":{"$ref":"#"},"name":{"type":"string"}}}`,
		"items":          `{"type":"object","properties":{"list":{"$ref":"#/$defs/l"}},"$defs":{"l":{"type":"array","items":{"$ref":"#/$defs/l"}}}}`,
		"additional":     `{"type":"object","additionalProperties":{"$ref":"#"}}`,
		"allOf to props": `{"type":"object","allOf":[{"properties":{"x":{"$ref":"#"}}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			sc := parse(t, s)
			r, err := Resolve(sc)
			require.NoError(t, err)
			var inst any = map[string]any{}
			for range 40 {
				inst = map[string]any{"child": inst, "x": inst, "list": []any{}, "k": inst}
			}
			_ = r.Validate(inst) // must return, whatever it says
		})
	}
}

func TestCheckRejects(t *testing.T) {
	deep := strings.Repeat(`{"not":`, 2000) + `{}` + strings.Repeat(`}`, 2000)
	fan := `{"type":"object","$defs":{`
	for i := range 20 {
		fan += `"d` + string(rune('a'+i)) + `":{"allOf":[{"$ref":"#/$defs/d` + string(rune('a'+i+1)) + `"},{"$ref":"#/$defs/d` + string(rune('a'+i+1)) + `"}]},`
	}
	fan += `"d` + string(rune('a'+20)) + `":{}},"allOf":[{"$ref":"#/$defs/da"}]}`
	refs := `{"type":"object","properties":{`
	for i := range MaxRefs + 1 {
		if i > 0 {
			refs += ","
		}
		refs += `"p` + strings.Repeat("x", i) + `":{"$ref":"#/$defs/s"}`
	}
	refs += `},"$defs":{"s":{"type":"string"}}}`
	for name, tc := range map[string]struct{ schema, want string }{
		"bad type":      {`{"type":"object","properties":{"a":{"type":"strng"}}}`, `type "strng"`},
		"bad types":     {`{"type":["object","nul"]}`, `type "nul"`},
		"dangling ref":  {`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, "does not lead to a subschema"},
		"remote ref":    {`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "only references inside the schema"},
		"no anchor":     {`{"type":"object","properties":{"a":{"$ref":"#nope"}}}`, `no anchor "nope"`},
		"nested id":     {`{"type":"object","properties":{"a":{"$id":"http://x/y","type":"string"}}}`, "$id is only supported at the root"},
		"big enum":      {`{"type":"object","properties":{"a":{"enum":[9007199254740993]}}}`, "2^53 or more"},
		"big const":     {`{"type":"object","properties":{"a":{"const":-18446744073709551616}}}`, "2^53 or more"},
		"fan-out":       {fan, "more than 4096 subschemas"},
		"too many refs": {refs, "more than 256 $ref"},
		"null sub":      {`{"type":"object","properties":{"a":null}}`, "null"},
		"deep not":      {deep, "deeper than 64"},
	} {
		t.Run(name, func(t *testing.T) {
			if err := ScanDepth([]byte(tc.schema), MaxDepth); err != nil {
				assert.ErrorIs(t, err, ErrSchema)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			err := Check(parse(t, tc.schema))
			require.ErrorIs(t, err, ErrSchema)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCheckRejectsSharedAndDeepGoSchemas(t *testing.T) {
	shared := &jsonschema.Schema{Type: "string"}
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": shared, "b": shared}}
	assert.ErrorContains(t, Check(s), "not a tree")

	loop := &jsonschema.Schema{Type: "object"}
	loop.Properties = map[string]*jsonschema.Schema{"self": loop}
	assert.ErrorContains(t, Check(loop), "not a tree")

	deep := &jsonschema.Schema{}
	for range MaxDepth + 1 {
		deep = &jsonschema.Schema{Not: deep}
	}
	assert.ErrorContains(t, Check(deep), "deeper than")
}

// TestChildFields guards eachChild against a jsonschema-go upgrade that
// adds a subschema keyword.
func TestChildFields(t *testing.T) {
	var got []string
	st := reflect.TypeFor[jsonschema.Schema]()
	sch := reflect.TypeFor[*jsonschema.Schema]()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Type == sch || f.Type == reflect.SliceOf(sch) || f.Type == reflect.MapOf(reflect.TypeFor[string](), sch) {
			got = append(got, f.Name)
		}
	}
	slices.Sort(got)
	want := slices.Clone(childFields)
	slices.Sort(want)
	assert.Equal(t, want, got)

	// And eachChild visits every one of them.
	s := &jsonschema.Schema{}
	v := reflect.ValueOf(s).Elem()
	for _, name := range childFields {
		f := v.FieldByName(name)
		switch f.Kind() {
		case reflect.Pointer:
			f.Set(reflect.ValueOf(&jsonschema.Schema{}))
		case reflect.Slice:
			f.Set(reflect.ValueOf([]*jsonschema.Schema{{}}))
		case reflect.Map:
			f.Set(reflect.ValueOf(map[string]*jsonschema.Schema{"k": {}}))
		}
	}
	n := 0
	eachChild(s, func(string, *jsonschema.Schema) bool { n++; return true })
	assert.Equal(t, len(childFields), n)
}

func TestResolveValidDefaults(t *testing.T) {
	_, err := Resolve(parse(t, `{"type":"object","properties":{"a":{"type":"integer","default":"x"}}}`))
	assert.ErrorIs(t, err, ErrSchema)
	r, err := Resolve(parse(t, `{"type":"object","properties":{"a":{"type":"integer","default":3}}}`))
	require.NoError(t, err)
	assert.NoError(t, r.Validate(map[string]any{"a": 1}))
}

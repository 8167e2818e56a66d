package schemacheck

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// keywords are the JSON Schema keywords the validator reads: the JSON
// names of jsonschema.Schema's fields, taken from the type itself so that
// the list follows the validator.
var keywords = func() []string {
	ks := []string{"type", "items", "dependencies"} // read by Schema.UnmarshalJSON
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			ks = append(ks, name)
		}
	}
	return ks
}()

// shape is how a keyword's value holds subschemas.
type shape uint8

const (
	oneShape  shape = 1 << iota // a schema
	mapShape                    // an object of schemas
	listShape                   // an array of schemas
)

// subschemaKeywords is the one table of the keywords whose value holds
// subschemas; other keywords hold data (enum, const, default, examples)
// whose keys are the user's. now is the shape in 2020-12, the draft of
// Prepare's copy; before adds the shapes of draft-04 to 2019-09
// (array-form items, draft-07 dependencies), which ExactKeys and pointers
// into a [jsonschema.Schema] also meet. Prepare walks them in this order.
var subschemaKeywords = []struct {
	name        string
	now, before shape
}{
	{"not", oneShape, 0}, {"if", oneShape, 0}, {"then", oneShape, 0}, {"else", oneShape, 0},
	{"additionalProperties", oneShape, 0}, {"propertyNames", oneShape, 0},
	{"unevaluatedProperties", oneShape, 0}, {"contains", oneShape, 0},
	{"unevaluatedItems", oneShape, 0}, {"contentSchema", oneShape, 0},
	{"items", oneShape, listShape}, {"additionalItems", oneShape, 0},
	{"properties", mapShape, 0}, {"patternProperties", mapShape, 0},
	{"$defs", mapShape, 0}, {"definitions", mapShape, 0}, {"dependentSchemas", mapShape, 0},
	{"dependencies", 0, mapShape},
	{"allOf", listShape, 0}, {"anyOf", listShape, 0}, {"oneOf", listShape, 0}, {"prefixItems", listShape, 0},
}

// anyDraftShape gives each keyword of subschemaKeywords its shapes in any
// draft: where ExactKeys looks for schemas inside a schema.
var anyDraftShape = func() map[string]shape {
	m := make(map[string]shape, len(subschemaKeywords))
	for _, k := range subschemaKeywords {
		m[k.name] = k.now | k.before
	}
	return m
}()

// keywordsShaped lists, in table order, the keywords whose value has
// shape sh in 2020-12.
func keywordsShaped(sh shape) []string {
	var out []string
	for _, k := range subschemaKeywords {
		if k.now == sh {
			out = append(out, k.name)
		}
	}
	return out
}

// ExactKeys refuses a schema in which a key is a case variant of a
// keyword the validator reads ("PROPERTIES" beside "properties",
// "Required"), or gives a keyword twice, anywhere a schema may stand. The
// validator decodes the schema with encoding/json, which matches keys
// regardless of case (the last one wins), while a provider reads the exact
// key: without this check the dispatcher would validate calls against
// another schema than the one the model was shown. raw must be valid JSON
// within [MaxDepth] (checked before); the error names the path.
func ExactKeys(raw []byte) error {
	return exactKeys(raw, "")
}

func exactKeys(raw []byte, path string) error {
	raw = trimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil // true, false: no keys
	}
	var seen []string
	return jsonx.EachMember(raw, func(key, value []byte) error {
		k := string(key)
		at := path + "/" + escape(k)
		if isKeyword(k) {
			for _, s := range seen {
				if s == k {
					return fmt.Errorf("%w: at %s: the keyword %q appears twice; a provider may read the other one", ErrSchema, at, k)
				}
			}
			seen = append(seen, k)
			return subschemas(k, value, at)
		}
		for _, kw := range keywords {
			if jsonx.FoldEqual(key, kw) {
				return fmt.Errorf("%w: at %s: the key %.40q is a case variant of the keyword %q, which the validator would read in its place while the provider ignores it; write %q exactly or remove the key", ErrSchema, at, k, kw, kw)
			}
		}
		return nil
	})
}

// subschemas checks the schemas inside the value of keyword k.
func subschemas(k string, value []byte, at string) error {
	value = trimSpace(value)
	if len(value) == 0 {
		return nil
	}
	sh := anyDraftShape[k]
	switch {
	case value[0] == '[' && sh&listShape != 0:
		i := 0
		return jsonx.EachElement(value, func(v []byte) error {
			err := exactKeys(v, fmt.Sprintf("%s/%d", at, i))
			i++
			return err
		})
	case value[0] == '{' && sh&mapShape != 0:
		return jsonx.EachMember(value, func(name, v []byte) error {
			return exactKeys(v, at+"/"+escape(string(name)))
		})
	case value[0] == '{' && sh&oneShape != 0:
		return exactKeys(value, at)
	}
	return nil
}

func isKeyword(k string) bool {
	for _, kw := range keywords {
		if k == kw {
			return true
		}
	}
	return false
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

package schemacheck

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolshelf/toolshelf/internal/jsonx"
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

// Keywords whose value is a subschema, a map of subschemas or an array of
// subschemas: where ExactKeys looks for schemas inside a schema. Other
// keywords hold data (enum, const, default, examples) whose keys are the
// user's.
var (
	schemaValued = map[string]bool{
		"items": true, "additionalProperties": true, "additionalItems": true,
		"not": true, "if": true, "then": true, "else": true, "contains": true,
		"propertyNames": true, "unevaluatedItems": true,
		"unevaluatedProperties": true, "contentSchema": true,
	}
	exactMaps = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true,
		"definitions": true, "dependentSchemas": true, "dependencies": true,
	}
	schemaArrays = map[string]bool{
		"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true,
	}
)

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
		at := path + "/" + escapePointer(k)
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
	switch {
	case value[0] == '[' && schemaArrays[k]:
		i := 0
		return jsonx.EachElement(value, func(v []byte) error {
			err := exactKeys(v, fmt.Sprintf("%s/%d", at, i))
			i++
			return err
		})
	case value[0] == '{' && exactMaps[k]:
		return jsonx.EachMember(value, func(name, v []byte) error {
			return exactKeys(v, at+"/"+escapePointer(string(name)))
		})
	case value[0] == '{' && schemaValued[k]:
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

// escapePointer escapes a key as a JSON Pointer token (RFC 6901).
func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

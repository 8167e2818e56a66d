package schemacheck

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// childFields names every field of [jsonschema.Schema] that holds
// subschemas; a test compares it with the struct, so that a new keyword in
// a later jsonschema-go cannot slip past the checks.
var childFields = []string{
	"Defs", "Definitions", "DependencySchemas",
	"PrefixItems", "Items", "ItemsArray", "AdditionalItems", "Contains", "UnevaluatedItems",
	"Properties", "PatternProperties", "AdditionalProperties", "PropertyNames", "UnevaluatedProperties",
	"AllOf", "AnyOf", "OneOf", "Not", "If", "Then", "Else", "DependentSchemas", "ContentSchema",
}

// eachChild calls f with the pointer segment and schema of every immediate
// subschema of s, in a fixed order, until f returns false.
func eachChild(s *jsonschema.Schema, f func(key string, sub *jsonschema.Schema) bool) {
	one := func(key string, sub *jsonschema.Schema) bool { return sub == nil || f(key, sub) }
	list := func(key string, subs []*jsonschema.Schema) bool {
		for i, sub := range subs {
			if !f(key+"/"+strconv.Itoa(i), sub) {
				return false
			}
		}
		return true
	}
	dict := func(key string, m map[string]*jsonschema.Schema) bool {
		for _, k := range sortedKeys(m) {
			if !f(key+"/"+escape(k), m[k]) {
				return false
			}
		}
		return true
	}
	_ = dict("$defs", s.Defs) && dict("definitions", s.Definitions) && dict("dependencies", s.DependencySchemas) &&
		list("prefixItems", s.PrefixItems) && one("items", s.Items) && list("items", s.ItemsArray) &&
		one("additionalItems", s.AdditionalItems) && one("contains", s.Contains) && one("unevaluatedItems", s.UnevaluatedItems) &&
		dict("properties", s.Properties) && dict("patternProperties", s.PatternProperties) &&
		one("additionalProperties", s.AdditionalProperties) && one("propertyNames", s.PropertyNames) &&
		one("unevaluatedProperties", s.UnevaluatedProperties) &&
		list("allOf", s.AllOf) && list("anyOf", s.AnyOf) && list("oneOf", s.OneOf) &&
		one("not", s.Not) && one("if", s.If) && one("then", s.Then) && one("else", s.Else) &&
		dict("dependentSchemas", s.DependentSchemas) && one("contentSchema", s.ContentSchema)
}

// sortedKeys returns a map's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// escape writes a key as a JSON pointer token (RFC 6901).
func escape(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return pointerEscaper.Replace(k)
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

package schemacheck

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/ecmare"
)

// Keywords by the shape of their value, for Prepare's walk.
var (
	oneSchema   = keywordsShaped(oneShape)
	schemaMaps  = keywordsShaped(mapShape)
	schemaLists = keywordsShaped(listShape)
	numbers     = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
	counts      = []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"}
	texts       = []string{"$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment",
		"title", "description", "format", "contentEncoding", "contentMediaType", "pattern"}
	flags = []string{"uniqueItems", "deprecated", "readOnly", "writeOnly"}
)

func isSchema(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

// schema returns the 2020-12 copy of the schema v found at src in the
// source, to sit at dst in the copy.
func (p *prep) schema(v any, src, dst string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v // true or false
	}
	p.moved[src] = dst
	out := make(map[string]any, len(m))
	for k, val := range m {
		out[k] = val
	}
	p.legacy(out, dst)
	p.types(out, dst)
	p.patterns(out, dst)
	if r, ok := out["$ref"]; ok && p.draft <= draft7 {
		// Before 2019-09 a $ref's siblings are ignored; the definitions
		// stay, for pointers into them.
		for k := range out {
			if k != "$ref" && k != "definitions" && k != "$defs" {
				delete(out, k)
			}
		}
		out["$ref"] = r
	}
	if a, ok := out["$anchor"].(string); ok {
		p.anchors[a] = true
	}
	if a, ok := out["$dynamicAnchor"].(string); ok {
		p.anchors[a] = true
	}
	p.children(m, out, src, dst)
	return out
}

// children walks the subschemas of out (copied from the source schema m).
func (p *prep) children(m, out map[string]any, src, dst string) {
	srcKey := func(k string) string {
		switch k { // where legacy() took each keyword from
		case "prefixItems":
			if _, ok := m["prefixItems"]; !ok {
				return "items"
			}
		case "items":
			if _, ok := m["items"].([]any); ok {
				return "additionalItems"
			}
		}
		return k
	}
	eachSubschema(out, func(k string, sh shape, name string, sub any) any {
		from, tail := srcKey(k), ""
		if sh == mapShape {
			from = mapSource(m, k, name)
		}
		if sh != oneShape {
			tail = "/" + escape(name)
		}
		return p.schema(sub, src+"/"+from+tail, dst+"/"+k+tail)
	})
}

// eachSubschema calls f with every immediate subschema of s, in the walk's
// order: its keyword, the keyword's shape, the member name or element
// index ("" for a lone schema), and the value; what f returns takes the
// value's place.
func eachSubschema(s map[string]any, f func(k string, sh shape, name string, sub any) any) {
	for _, k := range oneSchema {
		if sub, ok := s[k]; ok {
			s[k] = f(k, oneShape, "", sub)
		}
	}
	for _, k := range schemaMaps {
		m, _ := s[k].(map[string]any)
		for _, name := range sortedKeys(m) {
			m[name] = f(k, mapShape, name, m[name])
		}
	}
	for _, k := range schemaLists {
		list, _ := s[k].([]any)
		for i := range list {
			list[i] = f(k, listShape, strconv.Itoa(i), list[i])
		}
	}
}

// mapSource names the keyword of the source schema m that held the entry
// name of the copy's keyword k.
func mapSource(m map[string]any, k, name string) string {
	from := map[string]string{"$defs": "definitions", "dependentSchemas": "dependencies"}[k]
	if from == "" {
		return k
	}
	if own, _ := m[k].(map[string]any); own != nil {
		if _, ok := own[name]; ok {
			return k
		}
	}
	return from
}

// legacy rewrites draft-04 to 2019-09 forms into 2020-12 ones.
func (p *prep) legacy(s map[string]any, path string) {
	delete(s, "$schema")
	for _, pair := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		if b, ok := s[pair[0]].(bool); ok {
			delete(s, pair[0])
			if n, ok := s[pair[1]]; ok && b {
				s[pair[0]] = n
				delete(s, pair[1])
			}
		}
	}
	if id, ok := s["id"].(string); ok {
		delete(s, "id")
		if _, has := s["$id"]; !has && path != "" {
			s["$id"] = id
		}
	}
	if id, ok := s["$id"].(string); ok {
		delete(s, "$id")
		if a, isAnchor := strings.CutPrefix(id, "#"); isAnchor && a != "" {
			s["$anchor"] = a // an anchor in draft-06 and draft-07
		} else if path != "" && !isAnchor {
			p.note(path, "$id", "a subschema with its own $id (an embedded resource) is not supported; its references are resolved against the tool's schema")
		}
	}
	p.definitions(s, path)
	p.dependencies(s, path)
	if items, ok := s["items"].([]any); ok {
		delete(s, "items")
		if _, has := s["prefixItems"]; has {
			p.note(path, "items", "both array-form items and prefixItems; the array form is left out of validation")
		} else {
			s["prefixItems"] = items
		}
		if add, ok := s["additionalItems"]; ok {
			s["items"] = add
		}
	}
	delete(s, "additionalItems") // without array-form items it has no effect
	if _, ok := s["$recursiveRef"]; ok {
		p.note(path, "$recursiveRef", "2019-09's $recursiveRef is left out of validation")
		delete(s, "$recursiveRef")
	}
	delete(s, "$recursiveAnchor")
}

// definitions merges "definitions" into "$defs" when both are present
// (the validator takes one): moved keeps the pointers right.
func (p *prep) definitions(s map[string]any, path string) {
	old, ok := s["definitions"].(map[string]any)
	if !ok {
		return
	}
	defs, ok := s["$defs"].(map[string]any)
	if !ok {
		return
	}
	merged := make(map[string]any, len(defs)+len(old))
	for k, v := range defs {
		merged[k] = v
	}
	for k, v := range old {
		if _, clash := merged[k]; clash {
			p.note(path, "definitions", fmt.Sprintf("%q is in both definitions and $defs; the definitions entry is left out of validation", clip(k)))
			continue
		}
		merged[k] = v
	}
	delete(s, "definitions")
	s["$defs"] = merged // a $ref to #/definitions/k follows it (moved)
}

// dependencies splits draft-07's "dependencies" into dependentRequired and
// dependentSchemas.
func (p *prep) dependencies(s map[string]any, path string) {
	deps, ok := s["dependencies"].(map[string]any)
	if !ok {
		return
	}
	delete(s, "dependencies")
	req, _ := s["dependentRequired"].(map[string]any)
	sch, _ := s["dependentSchemas"].(map[string]any)
	for _, k := range sortedKeys(deps) {
		v := deps[k]
		target, kw := sch, "dependentSchemas"
		if _, isList := v.([]any); isList {
			target, kw = req, "dependentRequired"
		}
		if target == nil {
			target = map[string]any{}
			s[kw] = target
			if kw == "dependentSchemas" {
				sch = target
			} else {
				req = target
			}
		}
		if _, clash := target[k]; clash {
			p.note(path, "dependencies", fmt.Sprintf("%q is in both dependencies and %s; the dependencies entry is left out of validation", clip(k), kw))
			continue
		}
		target[k] = v
	}
}

// types leaves out keywords whose value has the wrong type for their
// keyword, and makes the numbers of the rest exact (exactNumbers).
func (p *prep) types(s map[string]any, path string) {
	bad := func(k, want string) {
		p.note(path, k, "the value is not "+want+"; left out of validation")
		delete(s, k)
	}
	for _, k := range oneSchema {
		if v, ok := s[k]; ok && !isSchema(v) {
			bad(k, "a schema")
		}
	}
	for _, k := range schemaMaps {
		if v, ok := s[k]; ok {
			m, isMap := v.(map[string]any)
			for _, sub := range m {
				isMap = isMap && isSchema(sub)
			}
			if !isMap {
				bad(k, "an object of schemas")
			}
		}
	}
	for _, k := range schemaLists {
		if v, ok := s[k]; ok {
			l, isList := v.([]any)
			for _, sub := range l {
				isList = isList && isSchema(sub)
			}
			if !isList || len(l) == 0 && k != "prefixItems" {
				bad(k, "a non-empty array of schemas")
			}
		}
	}
	for _, k := range numbers {
		if _, ok := s[k].(json.Number); !ok && s[k] != nil {
			bad(k, "a number")
		}
	}
	for _, k := range counts {
		n, ok := s[k].(json.Number)
		switch {
		case s[k] == nil:
		case !ok || !count(n):
			bad(k, "a non-negative integer")
		default:
			f, _ := n.Float64()
			s[k] = json.Number(strconv.FormatInt(int64(f), 10)) // 1e3 and 1.0 are integers too
		}
	}
	for _, k := range texts {
		if _, ok := s[k].(string); !ok && s[k] != nil {
			bad(k, "a string")
		}
	}
	for _, k := range flags {
		if _, ok := s[k].(bool); !ok && s[k] != nil {
			bad(k, "true or false")
		}
	}
	if v, ok := s["required"]; ok && !stringList(v) {
		bad("required", "an array of strings")
	}
	if v, ok := s["dependentRequired"]; ok {
		m, isMap := v.(map[string]any)
		for _, l := range m {
			isMap = isMap && stringList(l)
		}
		if !isMap {
			bad("dependentRequired", "an object of string arrays")
		}
	}
	if _, ok := s["dependencies"]; ok {
		bad("dependencies", "an object")
	}
	if v, ok := s["enum"]; ok {
		if _, isList := v.([]any); !isList {
			bad("enum", "an array")
		}
	}
	if v, ok := s["examples"]; ok {
		if _, isList := v.([]any); !isList {
			delete(s, "examples") // an annotation: nothing is lost
		}
	}
	delete(s, "$vocabulary") // meaningful in meta-schemas only; jsonschema-go refuses it elsewhere
	p.typeNames(s, path)
	p.exactNumbers(s, path)
}

func count(n json.Number) bool {
	f, err := n.Float64()
	return err == nil && f >= 0 && f == math.Trunc(f) && f <= math.MaxInt32
}

func stringList(v any) bool {
	l, ok := v.([]any)
	for _, e := range l {
		_, isString := e.(string)
		ok = ok && isString
	}
	return ok
}

// typeNames leaves out a "type" that names no JSON Schema type (the root's
// is left to the registry's own rule).
func (p *prep) typeNames(s map[string]any, path string) {
	v, ok := s["type"]
	if !ok || path == "" {
		return
	}
	good := false
	switch t := v.(type) {
	case string:
		good = jsonTypes[t]
	case []any:
		good = len(t) > 0
		for _, e := range t {
			name, _ := e.(string)
			good = good && jsonTypes[name]
		}
	}
	if !good {
		p.note(path, "type", "not a JSON Schema type (null, boolean, object, array, number, integer, string); left out of validation")
		delete(s, "type")
	}
}

// patterns translates "pattern" and the keys of "patternProperties" from
// ECMA-262 to RE2.
func (p *prep) patterns(s map[string]any, path string) {
	if pat, ok := s["pattern"].(string); ok {
		re, err := ecmare.Translate(pat)
		if err != nil {
			p.note(path, "pattern", patternReason(pat, err))
			delete(s, "pattern")
		} else {
			s["pattern"] = re
		}
	}
	pp, ok := s["patternProperties"].(map[string]any)
	if !ok {
		return
	}
	out := make(map[string]any, len(pp))
	lost := false
	for _, k := range sortedKeys(pp) {
		re, err := ecmare.Translate(k)
		if err != nil {
			p.note(path, "patternProperties", patternReason(k, err)+"; so are additionalProperties and unevaluatedProperties here, which depend on it")
			lost = true
			continue
		}
		if prev, clash := out[re]; clash { // two spellings of one pattern
			out[re] = map[string]any{"allOf": []any{prev, pp[k]}}
			continue
		}
		out[re] = pp[k]
	}
	s["patternProperties"] = out
	if lost {
		delete(s, "additionalProperties")
		delete(s, "unevaluatedProperties")
	}
}

func patternReason(pat string, err error) string {
	return fmt.Sprintf("%q: %s; left out of validation and sent as written", clip(pat), err)
}

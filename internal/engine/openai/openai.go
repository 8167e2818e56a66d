// Package openai holds what the library knows of OpenAI's API beyond an
// SDK's types: which schemas strict mode accepts unchanged, and which
// models have the hosted tool_search. internal/engine/wire's rule book and
// request's encoders share it.
package openai

import (
	"encoding/json"
	"strconv"
	"strings"
)

// NativeToolSearchModel reports whether an OpenAI model is documented for
// the hosted tool_search: gpt-5.4 and later ("gpt-5.4", "gpt-5.4-mini",
// "gpt-5.5", "gpt-6" ...).
func NativeToolSearchModel(model string) bool {
	rest, ok := strings.CutPrefix(model, "gpt-")
	if !ok {
		return false
	}
	major, rest := leadingInt(rest)
	if major < 0 {
		return false
	}
	minor := 0
	if r, ok := strings.CutPrefix(rest, "."); ok {
		if minor, _ = leadingInt(r); minor < 0 {
			return false
		}
	}
	return major > 5 || major == 5 && minor >= 4
}

func leadingInt(s string) (int, string) {
	i := 0
	for i < len(s) && i < 6 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return -1, s
	}
	n, _ := strconv.Atoi(s[:i])
	return n, s[i:]
}

// strictKeywords are the schema keywords OpenAI's strict mode accepts (its
// "supported schemas" for Structured Outputs), kept to the conservative
// subset: a schema with any other keyword is sent non-strict.
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "description": true, "title": true,
	"$defs": true, "definitions": true, "$ref": true, "pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minItems": true, "maxItems": true,
}

// maxStrictDepth is strict mode's nesting limit.
const maxStrictDepth = 10

// StrictCompatible reports whether schema can be sent with "strict": true
// unchanged: an object at the root, every object with
// "additionalProperties": false and every property required, only
// keywords strict mode supports, at most 10 levels deep. Anything else
// would be refused, or normalized by the API into a schema the tool does
// not declare.
func StrictCompatible(schema []byte) bool {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil || root["type"] != "object" || root["anyOf"] != nil {
		return false
	}
	return strictNode(root, 0)
}

func strictNode(v any, depth int) bool {
	m, ok := v.(map[string]any)
	if !ok || depth > maxStrictDepth {
		return false
	}
	for k := range m {
		if !strictKeywords[k] {
			return false
		}
	}
	if props, ok := m["properties"].(map[string]any); ok || m["type"] == "object" {
		if m["additionalProperties"] != false {
			return false
		}
		req, _ := m["required"].([]any)
		if len(req) != len(props) {
			return false
		}
		for _, r := range req {
			name, ok := r.(string)
			if !ok || props[name] == nil {
				return false
			}
		}
		for _, p := range props {
			if !strictNode(p, depth+1) {
				return false
			}
		}
	}
	if it, ok := m["items"]; ok && !strictNode(it, depth+1) {
		return false
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := m[key]; ok {
			dm, ok := defs.(map[string]any)
			if !ok {
				return false
			}
			for _, d := range dm {
				if !strictNode(d, depth+1) {
					return false
				}
			}
		}
	}
	if alts, ok := m["anyOf"]; ok {
		as, ok := alts.([]any)
		if !ok {
			return false
		}
		for _, a := range as {
			if !strictNode(a, depth+1) {
				return false
			}
		}
	}
	return true
}

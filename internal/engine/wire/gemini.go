package wire

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// openAPIKeys are the schema keywords "parameters" takes (the Gemini
// API's Schema: an OpenAPI 3.0 subset).
var openAPIKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
	"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true,
}

// gemini checks a generateContent body.
func (c *checker) gemini(req map[string]json.RawMessage) {
	if si, ok := req["systemInstruction"]; ok {
		c.geminiParts(object(si), "systemInstruction")
	}
	seen := map[string]string{}
	n := 0
	for i, tr := range c.array(req["tools"], "tools") {
		for j, fr := range c.array(object(tr)["functionDeclarations"], fmt.Sprintf("tools[%d].functionDeclarations", i)) {
			at := fmt.Sprintf("tools[%d].functionDeclarations[%d]", i, j)
			n++
			fn := object(fr)
			name, _ := str(fn["name"])
			if !toolname.GeminiValid(name) {
				c.add("tool-name", at+".name", "%.80q must start with a letter or an underscore and match [a-zA-Z0-9_.:-], ≤ %d", name, toolname.MaxGeminiLen)
			}
			if p, ok := seen[name]; ok {
				c.add("unique-names", at+".name", "%q is also %s", name, p)
			} else {
				seen[name] = at
			}
			c.geminiSchema(fn, at, name)
		}
	}
	if n > MaxGeminiTools {
		c.add("tool-count", "tools", "%d function declarations; Gemini accepts at most %d", n, MaxGeminiTools)
	}
	var p calls
	names := map[string]string{} // open call id → name
	for i, cr := range c.array(req["contents"], "contents") {
		at := fmt.Sprintf("contents[%d]", i)
		m := object(cr)
		role, _ := str(m["role"])
		if role != "user" && role != "model" {
			c.add("roles", at+".role", "%s: want \"user\" or \"model\"", cmp.Or(string(m["role"]), "missing"))
		}
		parts := c.geminiParts(m, at)
		if role == "user" {
			for j, pr := range parts {
				fr := object(object(pr)["functionResponse"])
				if fr == nil {
					continue
				}
				pp := fmt.Sprintf("%s.parts[%d].functionResponse", at, j)
				id, _ := str(fr["id"])
				name, _ := str(fr["name"])
				if want := names[id]; !p.answer(id) {
					c.add("calls-answered", pp+".id", "response for %q answers no functionCall of the previous content", id)
				} else if name != want {
					c.add("calls-answered", pp+".name", "response for %q names %q, the call is %q", id, name, want)
				}
			}
		}
		c.unanswered(&p)
		if role == "model" {
			for j, pr := range parts {
				fc := object(object(pr)["functionCall"])
				if fc == nil {
					continue
				}
				pp := fmt.Sprintf("%s.parts[%d].functionCall", at, j)
				id, _ := str(fc["id"])
				name, _ := str(fc["name"])
				if !toolname.GeminiValid(name) {
					c.add("tool-name", pp+".name", "%.80q is not a Gemini function name", name)
				}
				names[id] = name
				p.open(id, pp)
			}
		}
	}
	c.unanswered(&p)
}

// geminiParts checks that content m has parts and that none is empty, and
// returns them.
func (c *checker) geminiParts(m map[string]json.RawMessage, at string) []json.RawMessage {
	parts := c.array(m["parts"], at+".parts")
	if len(parts) == 0 {
		c.add("empty-parts", at+".parts", "contents.parts must not be empty")
	}
	for j, pr := range parts {
		if len(object(pr)) == 0 {
			c.add("empty-parts", fmt.Sprintf("%s.parts[%d]", at, j), "an empty part")
		}
	}
	return parts
}

// geminiSchema checks a function declaration's schema: at most one of
// parameters and parametersJsonSchema, of type object, and parameters in
// the OpenAPI subset.
func (c *checker) geminiSchema(fn map[string]json.RawMessage, at, name string) {
	params, hasP := fn["parameters"]
	js, hasJS := fn["parametersJsonSchema"]
	switch {
	case hasP && hasJS:
		c.add("schema-field", at, "%q: parameters and parametersJsonSchema are mutually exclusive", name)
	case hasJS:
		if typ, _ := str(object(js)["type"]); typ != "object" {
			c.add("schema-field", at+".parametersJsonSchema", "%q: the schema must describe an object, got type %.40s", name, cmp.Or(string(object(js)["type"]), "none"))
		}
	case hasP:
		c.openAPISchema(object(params), at+".parameters", name)
	}
}

// openAPISchema checks schema s and its nested schemas against the
// keywords "parameters" accepts.
func (c *checker) openAPISchema(s map[string]json.RawMessage, at, name string) {
	for _, k := range slices.Sorted(maps.Keys(s)) {
		v := s[k]
		if !openAPIKeys[k] {
			c.add("schema-field", at+"."+k, "%q: %q is not in the OpenAPI subset parameters takes; use parametersJsonSchema", name, k)
			continue
		}
		switch k {
		case "items":
			c.openAPISchema(object(v), at+".items", name)
		case "properties":
			props := object(v)
			for _, pk := range slices.Sorted(maps.Keys(props)) {
				c.openAPISchema(object(props[pk]), at+".properties."+pk, name)
			}
		case "anyOf":
			var subs []json.RawMessage
			_ = json.Unmarshal(v, &subs)
			for i, sv := range subs {
				c.openAPISchema(object(sv), fmt.Sprintf("%s.anyOf[%d]", at, i), name)
			}
		}
	}
}

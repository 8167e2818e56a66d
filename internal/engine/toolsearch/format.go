package toolsearch

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/registry"
)

// maxSchemaDepth bounds how deep nested objects are written out; deeper
// levels are summarised by type. Real catalogs nest at most 4 deep
// (measured on testdata/catalogs).
const maxSchemaDepth = 8

// formatFull writes a tool as the model reads it after loading: its name, its
// description, then every parameter with type, whether it is required, enum
// values, defaults and bounds, nested objects indented. The text is a pure
// function of the tool, so the same tool always reads the same.
func formatFull(b *strings.Builder, t *registry.Tool) {
	b.WriteString("## ")
	b.WriteString(t.Name)
	b.WriteByte('\n')
	if d := strings.TrimSpace(t.Description); d != "" {
		b.WriteString(d)
		b.WriteByte('\n')
	}
	var params strings.Builder
	writeProperties(&params, t.ModelSchema(), 0)
	if params.Len() == 0 {
		b.WriteString("Parameters: none (call it with {}).\n")
		return
	}
	b.WriteString("Parameters:\n")
	b.WriteString(params.String())
}

// formatCandidate writes "- name — first clause of the description", the
// compact line of a candidate the model may load by name.
func formatCandidate(b *strings.Builder, t *registry.Tool) {
	b.WriteString("- ")
	b.WriteString(t.Name)
	if s := firstClause(t.Description, candidateRunes); s != "" {
		b.WriteString(" — ")
		b.WriteString(s)
	}
	b.WriteByte('\n')
}

// candidateRunes bounds the clause of a candidate line: a line costs 10–25
// tokens, a schema 100–400.
const candidateRunes = 48

// firstClause returns the first clause of s's first sentence: cut at the
// first ";", ":", ", ", " (" or " - " after at least 12 runes, the final
// period dropped, then cut to limit runes with "…".
func firstClause(s string, limit int) string {
	s = strings.TrimSuffix(oneLine(s, 0), ".")
	cut := len(s)
	for _, sep := range []string{"; ", ": ", ", ", " (", " - ", " — "} {
		if i := strings.Index(s, sep); i >= 0 && i < cut && utf8.RuneCountInString(s[:i]) >= 12 {
			cut = i
		}
	}
	return truncate(strings.TrimRight(s[:cut], " ."), limit)
}

// oneLine returns the first sentence or line of s, whitespace collapsed,
// cut to limit runes with "…".
func oneLine(s string, limit int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return truncate(collapse(s), limit)
}

// collapse replaces runs of whitespace (newlines included) with one space.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// truncate cuts s to at most limit runes, ending in "…" when cut.
func truncate(s string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// writeProperties writes the properties of an object schema as a list.
func writeProperties(b *strings.Builder, schema []byte, depth int) {
	ms, err := members(schema)
	if err != nil {
		return
	}
	props, err := members(jsonx.Get(ms, "properties"))
	if err != nil {
		return
	}
	var required []string
	_ = json.Unmarshal(jsonx.Get(ms, "required"), &required)
	for _, p := range props {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString("- ")
		b.WriteString(p.Key)
		b.WriteString(" (")
		b.WriteString(typeText(p.Value, depth))
		for _, r := range required {
			if r == p.Key {
				b.WriteString(", required")
				break
			}
		}
		b.WriteString(")")
		if d := collapse(stringMember(p.Value, "description")); d != "" {
			b.WriteString(": ")
			b.WriteString(d)
		}
		b.WriteByte('\n')
		if depth < maxSchemaDepth {
			writeNested(b, p.Value, depth+1)
		}
	}
}

// writeNested writes the properties of an object, or of an array's object
// items, below the property that holds them.
func writeNested(b *strings.Builder, schema []byte, depth int) {
	ms, err := members(schema)
	if err != nil {
		return
	}
	if len(jsonx.Get(ms, "properties")) > 2 {
		writeProperties(b, schema, depth)
		return
	}
	if items := jsonx.Get(ms, "items"); len(items) > 0 {
		writeNested(b, items, depth)
	}
}

// typeText summarises a property schema: its type, enum, default and bounds.
func typeText(schema []byte, depth int) string {
	ms, err := members(schema)
	if err != nil {
		return "any"
	}
	var parts []string
	typ := typeName(ms)
	if items := jsonx.Get(ms, "items"); len(items) > 0 && (typ == "array" || typ == "") {
		typ = "array of " + typeText(items, depth+1)
	}
	if ap := jsonx.Get(ms, "additionalProperties"); len(ap) > 0 && ap[0] == '{' && len(jsonx.Get(ms, "properties")) == 0 {
		typ = "object mapping names to " + typeText(ap, depth+1)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		var alts []json.RawMessage
		if json.Unmarshal(jsonx.Get(ms, k), &alts) == nil && len(alts) > 0 {
			var ts []string
			for _, a := range alts {
				ts = append(ts, typeText(a, depth+1))
			}
			alt := strings.Join(ts, " or ")
			if typ == "" {
				typ = alt
			} else {
				typ += ", " + alt
			}
		}
	}
	if ref := stringMember(schema, "$ref"); ref != "" && typ == "" {
		typ = "see " + ref
	}
	if typ == "" {
		typ = "any"
	}
	parts = append(parts, typ)
	if v := jsonx.Get(ms, "enum"); len(v) > 0 {
		var vals []json.RawMessage
		if json.Unmarshal(v, &vals) == nil {
			ss := make([]string, len(vals))
			for i, x := range vals {
				ss[i] = compact(x)
			}
			parts = append(parts, "one of "+strings.Join(ss, ", "))
		}
	}
	for _, k := range []string{"const", "default", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"} {
		if v := jsonx.Get(ms, k); len(v) > 0 {
			parts = append(parts, k+" "+compact(v))
		}
	}
	return strings.Join(parts, ", ")
}

func typeName(ms []jsonx.Member) string {
	v := jsonx.Get(ms, "type")
	if len(v) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var ss []string
	if json.Unmarshal(v, &ss) == nil {
		return strings.Join(ss, " or ")
	}
	return ""
}

func compact(v []byte) string {
	return string(jsonx.AppendCompact(nil, v))
}

// members is jsonx.Members that accepts only objects.
func members(obj []byte) ([]jsonx.Member, error) {
	if len(obj) == 0 || obj[0] != '{' {
		return nil, errNotObject
	}
	return jsonx.Members(obj)
}

var errNotObject = jsonError("not an object")

type jsonError string

func (e jsonError) Error() string { return string(e) }

// stringMember returns obj[key] when it is a JSON string.
func stringMember(obj []byte, key string) string {
	if len(obj) == 0 || obj[0] != '{' {
		return ""
	}
	ms, err := jsonx.Members(obj)
	if err != nil {
		return ""
	}
	var s string
	if v := jsonx.Get(ms, key); len(v) > 0 && v[0] == '"' {
		_ = json.Unmarshal(v, &s)
	}
	return s
}

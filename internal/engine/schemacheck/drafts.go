package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Note is one part of a schema that is not validated exactly as written:
// a keyword left out of validation, or read in a weaker sense. The schema
// a provider is sent is not changed by it.
type Note struct {
	// Path is the JSON pointer of the schema (inside the tool's schema)
	// that holds the keyword; "" is the root.
	Path string
	// Keyword is the keyword concerned ("pattern", "$ref" ...).
	Keyword string
	// Reason says what was done and why, in a sentence.
	Reason string
}

func (n Note) String() string {
	if n.Keyword == "" {
		return where(n.Path) + ": " + n.Reason
	}
	return where(n.Path) + ": " + n.Keyword + ": " + n.Reason
}

// Drafts of JSON Schema a tool schema may declare with "$schema".
const (
	draft4    = 4
	draft6    = 6
	draft7    = 7
	draft2019 = 2019
	draft2020 = 2020
)

// draftOf reads a "$schema" URI; ok is false for one it does not know.
func draftOf(uri string) (int, bool) {
	u := strings.TrimSuffix(strings.TrimSuffix(uri, "#"), "/")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	switch u {
	case "json-schema.org/draft-03/schema", "json-schema.org/draft-04/schema":
		return draft4, true
	case "json-schema.org/draft-06/schema":
		return draft6, true
	case "json-schema.org/draft-07/schema":
		return draft7, true
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, true
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		return draft2020, true
	}
	return draft2020, false
}

// Prepare reads a tool's raw schema bytes into the schema the validator
// uses: a copy in JSON Schema 2020-12 terms, whatever draft the bytes were
// written in. Draft-04 to 2019-09 forms take their 2020-12 meaning
// (boolean exclusiveMinimum/exclusiveMaximum, "id", "definitions" both
// ways, "dependencies", array-form "items" and "additionalItems", $ref
// siblings ignored before 2019-09); ECMA-262 patterns are translated to
// RE2 ([ecmare.Translate]). A keyword that cannot be validated exactly —
// a pattern RE2 cannot express, a reference that leads nowhere, a value of
// the wrong type — is left out of the copy and reported in a [Note]; so is
// a schema the validator cannot resolve at all, which is then read as
// {"type":"object"}. Numbers are made exact (numbers.go): an enum, const or
// numeric bound that cannot be compared exactly refuses the schema, with
// an error naming the keyword and its path, rather than being left out.
// The copy is checked with [Check] (a bound exceeded, a reference cycle).
// The result is deterministic, and raw is never changed.
func Prepare(raw []byte) (*jsonschema.Schema, []Note, error) {
	if err := ScanDepth(raw, MaxDepth); err != nil {
		return nil, nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("%w: the schema is not JSON: %s", ErrSchema, syntaxWords(err))
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("%w: the schema must be a JSON object", ErrSchema)
	}
	p := &prep{draft: draft2020, moved: map[string]string{}, anchors: map[string]bool{}, exact: map[string]exactValues{}}
	if s, ok := root["$schema"].(string); ok {
		var known bool
		if p.draft, known = draftOf(s); !known {
			p.note("", "$schema", fmt.Sprintf("%q is not a JSON Schema draft this library knows; read as 2020-12", clip(s)))
		}
	}
	for _, k := range []string{"$id", "id"} {
		if s, ok := root[k].(string); ok && !strings.HasPrefix(s, "#") {
			p.rootID = strings.TrimSuffix(s, "#")
		}
	}
	out := p.schema(root, "", "")
	if p.err != nil {
		return nil, nil, p.err
	}
	p.refs(out, "")
	b, err := json.Marshal(out)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(b, s); err != nil {
		p.note("", "", "the schema could not be read for validation; calls are checked only for being a JSON object")
		return fallback(root), p.notes, nil
	}
	p.applyExact(s, "")
	if err := Check(s); err != nil {
		return nil, nil, err
	}
	if _, err := s.Resolve(nil); err != nil {
		p.note("", "", "the schema could not be resolved for validation ("+resolveWords(err)+"); calls are checked only for being a JSON object")
		return fallback(root), p.notes, nil
	}
	return s, p.notes, nil
}

// fallback is the schema a tool is validated with when its own cannot be:
// an object, with the root's type kept so that the registry's root rules
// still see it.
func fallback(root map[string]any) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object"}
	switch t := root["type"].(type) {
	case nil:
	case string:
		s.Type = t
	default: // a list or a non-string: the registry's root rule refuses it by this text
		b, _ := json.Marshal(t)
		s.Type = string(b)
	}
	return s
}

// syntaxWords is a JSON decoding error without Go's type names.
func syntaxWords(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%s at offset %d", se.Error(), se.Offset)
	}
	return "unexpected end or shape"
}

// resolveWords is a jsonschema-go resolution error in the library's words:
// its "jsonschema.Schema: <schema dump>: " prefix is cut.
func resolveWords(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && strings.HasPrefix(s, "jsonschema") {
		s = s[i+2:]
	}
	return clip(s)
}

// prep is one run of Prepare.
type prep struct {
	draft   int
	rootID  string
	notes   []Note
	moved   map[string]string // a schema's pointer in the source → in the copy
	anchors map[string]bool
	exact   map[string]exactValues // by pointer in the copy
	err     error                  // the first keyword that refuses the schema
}

func (p *prep) note(path, kw, reason string) {
	p.notes = append(p.notes, Note{Path: path, Keyword: kw, Reason: reason})
}

// pointerFragment writes a JSON pointer as a URI fragment.
func pointerFragment(ptr string) string {
	return "#" + (&url.URL{Fragment: ptr}).EscapedFragment()
}

// refs points every $ref and $dynamicRef of the copy (s at path) at its
// target's place in the copy, and leaves out the ones that lead nowhere
// inside the schema.
func (p *prep) refs(v any, path string) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, kw := range []string{"$ref", "$dynamicRef"} {
		ref, ok := s[kw].(string)
		if !ok {
			continue
		}
		if to, ok := p.target(ref); ok {
			s[kw] = to
			continue
		}
		p.note(path, kw, fmt.Sprintf("%q does not lead to a schema inside the tool's schema; left out of validation", clip(ref)))
		delete(s, kw)
	}
	eachSubschema(s, func(k string, sh shape, name string, sub any) any {
		tail := ""
		if sh != oneShape {
			tail = "/" + escape(name)
		}
		p.refs(sub, path+"/"+k+tail)
		return sub
	})
}

// target returns a reference as it reads in the copy, when it leads to a
// schema there.
func (p *prep) target(ref string) (string, bool) {
	r := ref
	if p.rootID != "" && strings.HasPrefix(r, p.rootID) {
		r = r[len(p.rootID):] // the schema naming itself by its id
	}
	frag, ok := strings.CutPrefix(r, "#")
	if !ok {
		return "", false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return "", false
	}
	if frag == "" {
		return "#", true
	}
	if !strings.HasPrefix(frag, "/") {
		return r, p.anchors[frag]
	}
	to, ok := p.moved[frag]
	if !ok {
		return "", false
	}
	if to == frag {
		return r, true
	}
	return pointerFragment(to), true
}

package execute

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/schemacheck"
	"github.com/toolshelf/toolshelf/registry"
)

// maxViolations bounds the violations one error lists.
const maxViolations = 20

// validator is a tool's resolved schema and what the dispatcher derives from
// it, computed once per tool and cached.
type validator struct {
	// full validates the whole instance, injected fields included.
	full *jsonschema.Resolved
	// relaxed keeps only the per-property keywords (properties,
	// patternProperties, additionalProperties, $defs), so that one member
	// {k: v} at a time can be validated: every violation is reported, in a
	// deterministic order, each with its pointer. Nil when the root uses
	// $ref or $dynamicRef.
	relaxed *jsonschema.Resolved
	// err is a resolution failure: the tool cannot be validated.
	err error
	// root is the unresolved schema; deepen walks it to narrow a
	// violation's pointer.
	root *jsonschema.Schema

	props       []string        // declared order (source order of RawSchema)
	required    []string        // declared order
	injected    map[string]bool // host-filled fields
	defaults    bool            // the schema declares a default somewhere under properties
	topDefaults []string        // optional top-level properties with a default, declared order
	deepDefault map[string]bool // top-level properties whose subtree declares a default
	example     string          // a skeleton params object built from the model's schema
	paging      []string        // properties that page through results (offset, cursor ...)
	multipleOf  bool            // the schema has a multipleOf, which the validator checks in float64
}

// validators caches one validator per tool. Tools are immutable once
// registered, so the tool pointer is a sound key; a second key by name and
// schema bytes lets a re-registered but identical tool reuse the work.
type validators struct {
	max   int
	mu    sync.RWMutex
	byPtr map[*registry.Tool]*validator
	byKey map[string]*validator
}

func (c *validators) get(t *registry.Tool) *validator {
	c.mu.RLock()
	v, ok := c.byPtr[t]
	c.mu.RUnlock()
	if ok {
		return v
	}
	key := t.Name + "\x00" + strings.Join(t.Injected, ",") + "\x00" + string(t.RawSchema)
	c.mu.RLock()
	v, ok = c.byKey[key]
	c.mu.RUnlock()
	// A self-built tool belongs to one session, and its handler usually
	// reaches that session: keyed by pointer, the cache would keep ended
	// sessions alive. It is found by name and schema instead.
	selfBuilt := t.Source == registry.SourceSelfBuilt
	if ok && selfBuilt {
		return v
	}
	if !ok {
		v = newValidator(t) // outside the lock: two goroutines may both build; both results are equal
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byPtr) >= c.max || len(c.byKey) >= c.max {
		c.byPtr = map[*registry.Tool]*validator{}
		c.byKey = map[string]*validator{}
	}
	if prev, ok := c.byKey[key]; ok {
		v = prev
	} else {
		c.byKey[key] = v
	}
	if !selfBuilt {
		c.byPtr[t] = v
	}
	return v
}

var pagingNames = []string{"cursor", "offset", "limit", "page", "page_token", "pageToken", "per_page", "start", "skip", "head_limit", "max_results", "max_length", "start_index"}

func newValidator(t *registry.Tool) *validator {
	v := &validator{injected: map[string]bool{}}
	for _, f := range t.Injected {
		v.injected[f] = true
	}
	s := t.InputSchema
	if s == nil {
		// A tool that did not come through the registry: Prepare bounds
		// the raw depth before jsonschema-go's quadratic parse.
		// Prepare reads any draft and ECMA patterns, as the registry does.
		ps, _, err := schemacheck.Prepare(t.RawSchema)
		if err != nil {
			v.err = err
			return v
		}
		s = ps
	}
	// The registry checked the schema; checking again here keeps the rule
	// local: nothing reaches jsonschema-go's validator unchecked.
	full, err := schemacheck.Resolve(s)
	if err != nil {
		v.err = err
		return v
	}
	v.full = full
	v.root = s
	v.multipleOf = schemacheck.HasMultipleOf(s)
	if s.Ref == "" && s.DynamicRef == "" {
		r := &jsonschema.Schema{
			ID: s.ID, Schema: s.Schema, Defs: s.Defs, Definitions: s.Definitions,
			Anchor: s.Anchor, DynamicAnchor: s.DynamicAnchor, Vocabulary: s.Vocabulary,
			Type:                 "object",
			Properties:           s.Properties,
			PatternProperties:    s.PatternProperties,
			AdditionalProperties: s.AdditionalProperties,
		}
		if rel, err := schemacheck.ResolvePlain(r); err == nil {
			v.relaxed = rel
		}
	}
	// Declared order from the source bytes; encoding/json's maps lost it.
	ms, _ := jsonx.Members(t.RawSchema)
	if pm, err := jsonx.Members(jsonx.Get(ms, "properties")); err == nil {
		for _, m := range pm {
			v.props = append(v.props, m.Key)
		}
	}
	for k := range s.Properties {
		if !slices.Contains(v.props, k) {
			v.props = append(v.props, k) // InputSchema given without RawSchema order
		}
	}
	v.required = slices.Clone(s.Required)
	v.deepDefault = map[string]bool{}
	for _, p := range v.props {
		sub := s.Properties[p]
		if sub == nil {
			continue
		}
		if sub.Default != nil && !slices.Contains(s.Required, p) {
			v.topDefaults = append(v.topDefaults, p)
			v.defaults = true
		}
		if hasDefaults(sub, 0) {
			v.deepDefault[p] = true
			v.defaults = true
		}
		if slices.Contains(pagingNames, p) && !v.injected[p] {
			v.paging = append(v.paging, p)
		}
	}
	v.example = exampleParams(t.ModelSchema())
	return v
}

// hasDefaults reports whether a schema's properties (recursively, as
// ApplyDefaults walks them) declare a default.
func hasDefaults(s *jsonschema.Schema, depth int) bool {
	if s == nil || depth > 32 {
		return false
	}
	for _, sub := range s.Properties {
		if sub != nil && (sub.Default != nil || hasDefaults(sub, depth+1)) {
			return true
		}
	}
	return false
}

// violation is one reason params fail a schema.
type violation struct {
	Pointer string // JSON pointer into params; "" is the whole object
	Message string
}

func (v violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "(params)"
	}
	return p + ": " + v.Message
}

// check validates the decoded params object against the tool's schema and
// returns every violation: missing required properties, then each member in
// declared order (extra members sorted), or else the whole-object keyword
// that failed.
func (v *validator) check(obj map[string]any, red *redactor) []violation {
	if v.multipleOf {
		// jsonschema-go divides by multipleOf in float64: an integer beyond
		// 2^53 would be checked as another number. Refusing such a call
		// narrows what passes, never widens it (see docs/reliability.md).
		if ptr, n := bigInteger(obj, ""); ptr != "" {
			return []violation{{ptr, red.text(problemBigInteger(n))}}
		}
	}
	// The common case, a valid call, costs one validation; the breakdown
	// runs only for calls that fail.
	fullErr := v.full.Validate(obj)
	if fullErr == nil {
		return nil
	}
	var out []violation
	for _, r := range v.required {
		if _, ok := obj[r]; !ok {
			out = append(out, violation{pointer(r), problemRequired})
		}
	}
	if v.relaxed != nil {
		keys := make([]string, 0, len(obj))
		for _, p := range v.props {
			if _, ok := obj[p]; ok {
				keys = append(keys, p)
			}
		}
		extra := len(keys)
		for k := range obj {
			if !slices.Contains(v.props, k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys[extra:])
		one := make(map[string]any, 1)
		for _, k := range keys {
			clear(one)
			one[k] = obj[k]
			if err := v.relaxed.Validate(one); err != nil {
				msg, _ := cleanError(err, red)
				ptr := pointer(k)
				if strings.HasPrefix(msg, "unexpected additional properties") {
					msg = problemUnknownProperty(v.props, v.injected)
				} else if p, m := v.deepen(v.root.Properties[k], obj[k], ptr, 0, red); p != ptr && m != "" {
					ptr, msg = p, m
				}
				out = append(out, violation{ptr, msg})
			}
		}
	}
	if len(out) == 0 {
		msg, at := cleanError(fullErr, red)
		out = append(out, violation{schemaToPointer(at), msg})
	}
	return out
}

// bigInteger returns the pointer and text of the first integer (members
// in key order, elements in order) of magnitude above 2^53 in v, or "".
// Params are bounded in depth before they are parsed, so the recursion is.
func bigInteger(v any, ptr string) (string, string) {
	const limit = 1 << 53
	switch x := v.(type) {
	case int64:
		if x > limit || x < -limit {
			return orRoot(ptr), strconv.FormatInt(x, 10)
		}
	case uint64:
		if x > limit {
			return orRoot(ptr), strconv.FormatUint(x, 10)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if p, n := bigInteger(x[k], ptr+pointer(k)); p != "" {
				return p, n
			}
		}
	case []any:
		for i, e := range x {
			if p, n := bigInteger(e, ptr+"/"+strconv.Itoa(i)); p != "" {
				return p, n
			}
		}
	}
	return "", ""
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

// maxDeepen bounds how deep deepen descends into params.
const maxDeepen = 8

// deepen narrows a failing value at ptr (validated against sub) to the
// innermost member or element that fails on its own — /a/b/1 rather than
// /a — and returns that pointer with its message. jsonschema-go reports the
// schema path, not the instance path, so the walk validates children one at
// a time. It runs only for calls that already failed. Where it cannot
// descend (a $ref it cannot follow, a schema that does not resolve on its
// own, a value that is neither object nor array) it returns ptr and "".
func (v *validator) deepen(sub *jsonschema.Schema, val any, ptr string, depth int, red *redactor) (string, string) {
	sub = v.follow(sub)
	if sub == nil || depth >= maxDeepen {
		return ptr, ""
	}
	switch x := val.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if sub.Properties[k] != nil {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if msg, bad := v.fails(sub.Properties[k], x[k], red); bad {
				p := ptr + pointer(k)
				if dp, dm := v.deepen(sub.Properties[k], x[k], p, depth+1, red); dm != "" {
					return dp, dm
				}
				return p, msg
			}
		}
	case []any:
		items := sub.Items
		for i, e := range x {
			it := items
			if i < len(sub.PrefixItems) {
				it = sub.PrefixItems[i]
			}
			if it == nil {
				continue
			}
			if msg, bad := v.fails(it, e, red); bad {
				p := fmt.Sprintf("%s/%d", ptr, i)
				if dp, dm := v.deepen(it, e, p, depth+1, red); dm != "" {
					return dp, dm
				}
				return p, msg
			}
		}
	}
	return ptr, ""
}

// follow resolves a local $ref into the root's $defs or definitions; other
// references are not followed (nil).
func (v *validator) follow(s *jsonschema.Schema) *jsonschema.Schema {
	for range maxDeepen {
		if s == nil || s.Ref == "" {
			return s
		}
		if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
			s = v.root.Defs[name]
		} else if name, ok := strings.CutPrefix(s.Ref, "#/definitions/"); ok {
			s = v.root.Definitions[name]
		} else {
			return nil
		}
	}
	return nil
}

// fails validates val against sub on its own (with the root's definitions
// in reach) and returns the message when it fails. A schema that does not
// resolve on its own reports no failure, which stops the descent.
func (v *validator) fails(sub *jsonschema.Schema, val any, red *redactor) (string, bool) {
	w := &jsonschema.Schema{
		Type:        "object",
		Properties:  map[string]*jsonschema.Schema{"v": sub.CloneSchemas()}, // sub may also sit under $defs: a tree, not a graph
		Defs:        v.root.Defs,
		Definitions: v.root.Definitions,
	}
	// Inside w, a pointer such as "#/properties/v" names sub itself: a
	// reference that was harmless in the tool's schema can close an
	// in-place cycle here, so w is checked like any schema.
	r, err := schemacheck.ResolvePlain(w)
	if err != nil {
		return "", false
	}
	if err := r.Validate(map[string]any{"v": val}); err != nil {
		msg, _ := cleanError(err, red)
		return msg, true
	}
	return "", false
}

// cleanError turns jsonschema-go's "validating root: validating
// /properties/x: type: ..." into the final message and the innermost schema
// path, and bounds its length (it may quote a huge value). Injected values
// are redacted before the cut, so that no prefix of one survives it.
func cleanError(err error, red *redactor) (msg, at string) {
	s := err.Error()
	for strings.HasPrefix(s, "validating ") {
		rest := s[len("validating "):]
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		at, s = rest[:i], rest[i+2:]
	}
	if at != "" && at != "root" && strings.Contains(at, "/") && strings.Count(at, "/") > 2 {
		s += " (at schema " + at + ")"
	}
	s = ratOne.ReplaceAllString(s, "$1")
	s = zeros.ReplaceAllString(s, "$1")
	return clip(red.text(s), 300), at
}

// jsonschema-go prints numbers as big.Rat ("-1/1") and %f ("0.000000").
var (
	ratOne = regexp.MustCompile(`(-?\d+)/1\b`)
	zeros  = regexp.MustCompile(`(-?\d+)\.0+\b`)
)

// schemaToPointer maps a schema path /properties/a/... to the params
// pointer /a; anything else is the whole object.
func schemaToPointer(at string) string {
	rest, ok := strings.CutPrefix(at, "/properties/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return "/" + name // already escaped: schema paths are pointers
}

// pointer returns the JSON pointer (RFC 6901) of a top-level member.
func pointer(key string) string {
	key = strings.ReplaceAll(key, "~", "~0")
	return "/" + strings.ReplaceAll(key, "/", "~1")
}

func quoteList(names []string, skip map[string]bool) string {
	var b strings.Builder
	n := 0
	for _, s := range names {
		if skip[s] {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(fmt.Sprintf("%q", s))
		n++
	}
	if n == 0 {
		return "no properties"
	}
	return b.String()
}

// exampleParams builds a skeleton params object from a model schema: each
// required property (in declared order) with a placeholder of its type, or
// its first enum value, or its default.
func exampleParams(schema json.RawMessage) string {
	ms, err := jsonx.Members(schema)
	if err != nil {
		return "{}"
	}
	props, err := jsonx.Members(jsonx.Get(ms, "properties"))
	if err != nil {
		return "{}"
	}
	var req []string
	_ = json.Unmarshal(jsonx.Get(ms, "required"), &req)
	var out []jsonx.Member
	for _, p := range props {
		if !slices.Contains(req, p.Key) {
			continue
		}
		out = append(out, jsonx.Member{Key: p.Key, Value: placeholder(p.Value)})
	}
	return string(jsonx.AppendObject(nil, out))
}

func placeholder(prop json.RawMessage) json.RawMessage {
	var s struct {
		Type    any               `json:"type"`
		Enum    []json.RawMessage `json:"enum"`
		Default json.RawMessage   `json:"default"`
	}
	if json.Unmarshal(prop, &s) != nil {
		return json.RawMessage(`"..."`)
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if len(s.Default) > 0 {
		return s.Default
	}
	typ, _ := s.Type.(string)
	if ts, ok := s.Type.([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "string":
		return json.RawMessage(`"<string>"`)
	case "integer", "number":
		return json.RawMessage(`0`)
	case "boolean":
		return json.RawMessage(`false`)
	case "array":
		return json.RawMessage(`[]`)
	case "object":
		return json.RawMessage(`{}`)
	case "null":
		return json.RawMessage(`null`)
	}
	return json.RawMessage(`"..."`)
}

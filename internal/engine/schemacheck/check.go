// Package schemacheck decides whether a tool's input schema is safe to hand
// to jsonschema-go's validator, and resolves it when it is.
//
// jsonschema-go validates by recursion: a reference cycle that does not
// consume input ({"$ref":"#"} at the root, allOf:[{"$ref":"#"}], two
// properties whose $refs point at each other) recurses until the Go runtime
// stops the process with a fatal stack overflow, which no recover catches.
// Its validator (validate.go, state.validate in v0.4.3) keeps the same
// instance across these keywords: $ref, $dynamicRef, allOf, anyOf, oneOf,
// not, if, then, else, dependentSchemas and draft-07 schema dependencies.
// Every other subschema keyword (properties, patternProperties,
// additionalProperties, propertyNames, unevaluatedProperties, items,
// prefixItems, additionalItems, contains, unevaluatedItems) moves to a
// member or element, so a cycle through one of them ends when the instance
// does. [Check] rejects a cycle made only of the first kind, and bounds how
// many schemas one instance can be checked against in place, so that an
// acyclic but exponential fan-out (allOf of two refs to allOf of two refs
// ...) cannot hang a call either.
//
// Nothing here parses recursively before [ScanDepth] has bounded the
// nesting of the raw bytes: jsonschema-go's UnmarshalJSON re-reads each
// level, which is quadratic in the depth.
package schemacheck

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// Bounds on one schema. A real tool schema is far below each: the deepest
// of the 293 real MCP tools in testdata nests 9 levels of JSON and none
// uses $ref.
const (
	// MaxDepth bounds the nesting of a schema's JSON (objects and arrays),
	// and of a schema given as a Go value.
	MaxDepth = 64
	// MaxRefs bounds the $ref and $dynamicRef keywords in one schema.
	MaxRefs = 256
	// MaxInPlace bounds how many subschemas one instance value can be
	// checked against without moving to a member or element: the schema
	// itself plus everything reachable through $ref, allOf, anyOf, oneOf,
	// not, if/then/else and dependentSchemas, counted with repetition.
	MaxInPlace = 4096
	// MaxExactInt bounds (exclusively) the integer magnitude a schema's
	// enum or const may hold: jsonschema-go reads them as float64, where
	// 2^53+1 already reads as 2^53.
	MaxExactInt = 1 << 53
)

// ErrSchema is wrapped by every error this package returns.
var ErrSchema = errors.New("unusable schema")

// ScanDepth checks the nesting of raw JSON bytes (objects and arrays) against
// max without parsing them. It does not check syntax.
func ScanDepth(b []byte, max int) error {
	if jsonx.DeeperThan(b, max) {
		return fmt.Errorf("%w: the schema nests deeper than %d levels", ErrSchema, max)
	}
	return nil
}

// Resolve checks s with [Check] and then resolves it with jsonschema-go,
// validating its defaults. It is the only way this library resolves a
// schema it was given.
func Resolve(s *jsonschema.Schema) (*jsonschema.Resolved, error) {
	if err := Check(s); err != nil {
		return nil, err
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	return r, nil
}

// ResolvePlain is [Resolve] without validating defaults, for schemas the
// library derives from a checked one.
func ResolvePlain(s *jsonschema.Schema) (*jsonschema.Resolved, error) {
	if err := Check(s); err != nil {
		return nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	return r, nil
}

// node is one schema of the tree and where it sits.
type node struct {
	s    *jsonschema.Schema
	path string // JSON pointer from the root, for messages
}

// checker holds one run of Check.
type checker struct {
	nodes   []node
	index   map[*jsonschema.Schema]int
	anchors map[string][]int
	refs    int
}

// Check reports whether s is a tree of at most [MaxDepth] levels whose types
// are JSON Schema types, whose references stay inside s (#, #/pointer or
// #anchor; no $id below the root), number at most [MaxRefs], and form no
// cycle that keeps the same instance, and from whose every subschema at most
// [MaxInPlace] subschemas apply in place.
func Check(s *jsonschema.Schema) error {
	if s == nil {
		return fmt.Errorf("%w: no schema", ErrSchema)
	}
	c := &checker{index: map[*jsonschema.Schema]int{}, anchors: map[string][]int{}}
	if err := c.collect(s, "", 0); err != nil {
		return err
	}
	edges := make([][]int, len(c.nodes))
	for i, n := range c.nodes {
		for _, sub := range inPlace(n.s) {
			edges[i] = append(edges[i], c.index[sub])
		}
		for _, ref := range []string{n.s.Ref, n.s.DynamicRef} {
			if ref == "" {
				continue
			}
			targets, err := c.follow(s, ref)
			if err != nil {
				return fmt.Errorf("%w: at %s: $ref %q: %w", ErrSchema, where(n.path), clip(ref), err)
			}
			edges[i] = append(edges[i], targets...)
		}
	}
	return c.cycles(edges)
}

func where(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "integer": true, "string": true}

// collect walks the tree, numbering each schema and checking it locally.
func (c *checker) collect(s *jsonschema.Schema, path string, depth int) error {
	if s == nil {
		return fmt.Errorf("%w: at %s: a subschema is null", ErrSchema, where(path))
	}
	if depth > MaxDepth {
		return fmt.Errorf("%w: the schema nests deeper than %d levels", ErrSchema, MaxDepth)
	}
	if _, seen := c.index[s]; seen {
		return fmt.Errorf("%w: at %s: the schema is not a tree (a subschema appears twice); use $ref", ErrSchema, where(path))
	}
	c.index[s] = len(c.nodes)
	c.nodes = append(c.nodes, node{s: s, path: path})
	if err := local(s, path); err != nil {
		return err
	}
	if s.ID != "" && path != "" {
		return fmt.Errorf("%w: at %s: $id is only supported at the root of a tool schema", ErrSchema, path)
	}
	for _, a := range []string{s.Anchor, s.DynamicAnchor} {
		if a != "" {
			c.anchors[a] = append(c.anchors[a], c.index[s])
		}
	}
	if s.Ref != "" {
		c.refs++
	}
	if s.DynamicRef != "" {
		c.refs++
	}
	if c.refs > MaxRefs {
		return fmt.Errorf("%w: more than %d $ref keywords", ErrSchema, MaxRefs)
	}
	var err error
	eachChild(s, func(key string, sub *jsonschema.Schema) bool {
		err = c.collect(sub, path+"/"+key, depth+1)
		return err == nil
	})
	return err
}

// local checks what one schema says on its own.
func local(s *jsonschema.Schema, path string) error {
	if s.Type != "" && !jsonTypes[s.Type] {
		return fmt.Errorf("%w: at %s: type %q is not a JSON Schema type (null, boolean, object, array, number, integer, string)", ErrSchema, where(path), clip(s.Type))
	}
	for _, t := range s.Types {
		if !jsonTypes[t] {
			return fmt.Errorf("%w: at %s: type %q is not a JSON Schema type (null, boolean, object, array, number, integer, string)", ErrSchema, where(path), clip(t))
		}
	}
	vals := s.Enum
	if s.Const != nil {
		vals = append(vals[:len(vals):len(vals)], *s.Const)
	}
	for _, v := range vals {
		if f, ok := v.(float64); ok && math.Abs(f) >= MaxExactInt && f == math.Trunc(f) {
			return fmt.Errorf("%w: at %s: enum or const value %s is an integer of magnitude 2^53 or more, which cannot be compared exactly; write it as a string", ErrSchema, where(path), strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return nil
}

// inPlace returns the subschemas jsonschema-go validates against the same
// instance as s, $ref and $dynamicRef aside.
func inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, sub := range []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else} {
		if sub != nil {
			out = append(out, sub)
		}
	}
	for _, k := range sortedKeys(s.DependentSchemas) {
		out = append(out, s.DependentSchemas[k])
	}
	for _, k := range sortedKeys(s.DependencySchemas) {
		out = append(out, s.DependencySchemas[k])
	}
	return out
}

// follow returns the schemas a reference can reach.
func (c *checker) follow(root *jsonschema.Schema, ref string) ([]int, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, errors.New("only references inside the schema (#, #/pointer, #anchor) are supported")
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, fmt.Errorf("bad escape: %w", err)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		targets := c.anchors[frag]
		if len(targets) == 0 {
			return nil, fmt.Errorf("no anchor %q in the schema", clip(frag))
		}
		return targets, nil
	}
	s := root
	if frag != "" {
		toks := strings.Split(frag[1:], "/")
		for i := 0; i < len(toks) && s != nil; i++ {
			tok := unescape(toks[i])
			if multi(s, tok) {
				if i+1 == len(toks) {
					s = nil
					break
				}
				i++
				s = member(s, tok, unescape(toks[i]))
				continue
			}
			s = single(s, tok)
		}
	}
	i, ok := c.index[s]
	if s == nil || !ok {
		return nil, errors.New("the pointer does not lead to a subschema")
	}
	return []int{i}, nil
}

func unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// multi reports whether keyword tok of s holds several schemas, so that a
// pointer names one of them with the next token.
func multi(s *jsonschema.Schema, tok string) bool {
	sh := anyDraftShape[tok]
	if sh&oneShape != 0 { // items: one schema, or the array form when Items is unset
		return sh&listShape != 0 && s.Items == nil
	}
	return sh != 0
}

// single returns the schema keyword tok of s holds, or nil.
func single(s *jsonschema.Schema, tok string) *jsonschema.Schema {
	switch tok {
	case "not":
		return s.Not
	case "if":
		return s.If
	case "then":
		return s.Then
	case "else":
		return s.Else
	case "additionalProperties":
		return s.AdditionalProperties
	case "propertyNames":
		return s.PropertyNames
	case "unevaluatedProperties":
		return s.UnevaluatedProperties
	case "additionalItems":
		return s.AdditionalItems
	case "contains":
		return s.Contains
	case "unevaluatedItems":
		return s.UnevaluatedItems
	case "contentSchema":
		return s.ContentSchema
	case "items":
		return s.Items
	}
	return nil
}

// member returns the schema under keyword kw of s named by tok.
func member(s *jsonschema.Schema, kw, tok string) *jsonschema.Schema {
	var list []*jsonschema.Schema
	switch kw {
	case "properties":
		return s.Properties[tok]
	case "patternProperties":
		return s.PatternProperties[tok]
	case "$defs":
		return s.Defs[tok]
	case "definitions":
		return s.Definitions[tok]
	case "dependentSchemas":
		return s.DependentSchemas[tok]
	case "dependencies":
		return s.DependencySchemas[tok]
	case "allOf":
		list = s.AllOf
	case "anyOf":
		list = s.AnyOf
	case "oneOf":
		list = s.OneOf
	case "prefixItems":
		list = s.PrefixItems
	case "items":
		list = s.ItemsArray
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i >= len(list) || (tok != "0" && strings.HasPrefix(tok, "0")) {
		return nil
	}
	return list[i]
}

// cycles finds a cycle in the in-place graph, and computes for every schema
// how many schemas apply to one instance in place from it, by one
// iterative depth-first search (the graph may be as long as the schema is
// large, so no recursion).
func (c *checker) cycles(edges [][]int) error {
	const (
		white = iota
		grey
		black
	)
	state := make([]uint8, len(edges))
	cost := make([]int, len(edges))
	type frame struct{ n, next int }
	var stack []frame
	for start := range edges {
		if state[start] != white {
			continue
		}
		state[start] = grey
		stack = append(stack[:0], frame{n: start})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(edges[f.n]) {
				e := edges[f.n][f.next]
				f.next++
				switch state[e] {
				case grey:
					return fmt.Errorf("%w: at %s: a reference cycle that never moves into a member or element: validating it would recurse forever (%s reaches itself through $ref, allOf, anyOf, oneOf, not, if/then/else or dependentSchemas)", ErrSchema, where(c.nodes[e].path), where(c.nodes[e].path))
				case white:
					state[e] = grey
					stack = append(stack, frame{n: e})
				}
				continue
			}
			total := 1
			for _, e := range edges[f.n] {
				total += cost[e]
				if total > MaxInPlace {
					return fmt.Errorf("%w: at %s: one value would be checked against more than %d subschemas (through $ref, allOf, anyOf, oneOf ...); simplify the schema", ErrSchema, where(c.nodes[f.n].path), MaxInPlace)
				}
			}
			cost[f.n] = total
			state[f.n] = black
			stack = stack[:len(stack)-1]
		}
	}
	return nil
}

package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/schemacheck"
)

// DeferLoading is a tool's three-state defer flag: [DeferUnset] falls to the
// group's setting and then the global default, [DeferTrue] lets the policy
// defer the tool, [DeferFalse] pins it resident. Its JSON form is true, false,
// or absent/null, as in the providers' "defer_loading" field.
type DeferLoading uint8

// The three states of [DeferLoading].
const (
	DeferUnset DeferLoading = iota
	DeferTrue
	DeferFalse
)

func (d DeferLoading) String() string {
	switch d {
	case DeferTrue:
		return "true"
	case DeferFalse:
		return "false"
	}
	return "unset"
}

// MarshalJSON encodes true, false, or null for unset.
func (d DeferLoading) MarshalJSON() ([]byte, error) {
	switch d {
	case DeferTrue:
		return []byte("true"), nil
	case DeferFalse:
		return []byte("false"), nil
	}
	return []byte("null"), nil
}

// UnmarshalJSON accepts true, false and null.
func (d *DeferLoading) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true":
		*d = DeferTrue
	case "false":
		*d = DeferFalse
	case "null":
		*d = DeferUnset
	default:
		return fmt.Errorf("defer_loading: want true, false or null, got %.40s", b)
	}
	return nil
}

// Source says where a tool came from.
type Source uint8

// The three sources, which are also the three kinds of [Group].
const (
	SourceBuiltin Source = iota
	SourceMCP
	SourceSelfBuilt
)

func (s Source) String() string {
	switch s {
	case SourceMCP:
		return "mcp"
	case SourceSelfBuilt:
		return "self-built"
	}
	return "built-in"
}

// Tier classifies a tool as everyday ([TierCore]) or advanced and rare
// ([TierFull]). The empty tier inherits the group's, and a group's empty tier
// means core.
type Tier string

// The two tiers.
const (
	TierCore Tier = "core"
	TierFull Tier = "full"
)

// Annotations are the MCP tool hints. Pointers distinguish "not said" from false.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Result is what a [Handler] returns to the model.
type Result struct {
	// Text is the content the model reads.
	Text string
	// IsError marks a result that reports a failure the model should react to.
	IsError bool
}

// A Handler runs a call of a tool. params is the validated JSON object of
// arguments. A returned error is reported to the model as an error result; it
// never ends the session.
type Handler func(ctx context.Context, params json.RawMessage) (Result, error)

// Tool is one tool definition. It is plain data: the registry copies it on
// registration and never changes it afterwards; rendered forms live elsewhere.
type Tool struct {
	// Name is the exposed name, unique in a registry. For an MCP server's
	// tool it is mcp__<server>__<tool>; pass the server's own name when
	// registering and the registry prefixes it.
	Name string
	// OriginalName is the name the tool's source knows it by (the MCP
	// server's tool name). The registry sets it.
	OriginalName string
	// Description is what the model reads. For built-in tools with Template
	// set it is a template for package render; otherwise it is literal text.
	Description string
	// Template marks Description as a render template. Only built-in tools
	// may set it: imported and self-built descriptions are always text.
	Template bool
	// InputSchema is the parsed schema used for validation. Either it or
	// RawSchema may be given; the registry fills in the other.
	InputSchema *jsonschema.Schema
	// RawSchema is the schema's compact JSON as the model sees it, in the
	// source's own key order. The registry compacts it.
	RawSchema json.RawMessage
	// Annotations are the MCP hints (read-only, destructive, ...). May be nil.
	Annotations *Annotations
	// Tier is core or full; empty inherits the group's tier.
	Tier Tier
	// DeferLoading is the tool's own defer flag.
	DeferLoading DeferLoading
	// Group names the tool's group; empty means the built-in group
	// ("builtin").
	Group string
	// Source is the kind of the tool's group. The registry sets it.
	Source Source
	// SearchHints are extra words tool_search indexes for this tool.
	SearchHints []string
	// Injected lists top-level schema properties the host fills (an auth
	// token, a conversation id). They are validated but left out of the
	// schema the model sees, and a value the model supplies is ignored.
	Injected []string
	// Handler runs the tool. Nil for catalog-only tools.
	Handler Handler
	// Warnings list what of RawSchema the dispatcher does not validate
	// exactly as written (a pattern RE2 cannot express, a reference that
	// leads nowhere ...); the provider is sent RawSchema all the same.
	// The registry sets it, in schema order.
	Warnings []Warning

	// checked is the InputSchema that passed the schema checks, so that a
	// tool ParseCatalog checked is not resolved again when it registers.
	checked *jsonschema.Schema
	// trustedHints is its MCP group's TrustAnnotations, set by the registry.
	trustedHints bool
}

// ModelSchema returns the compact JSON schema the model sees: RawSchema with
// the Injected properties (and their "required" entries) removed. The result
// is deterministic: the source's key order is kept.
func (t *Tool) ModelSchema() json.RawMessage {
	if len(t.Injected) == 0 {
		return t.RawSchema
	}
	out, err := stripProperties(t.RawSchema, t.Injected)
	if err != nil {
		return t.RawSchema // validated at registration; unreachable in practice
	}
	return out
}

// normalize fills in RawSchema/InputSchema from one another and checks the
// schema: an object schema within the bounds of package schemacheck (depth,
// $ref count, no reference cycle that keeps the same instance) that
// jsonschema-go resolves. The raw bytes' depth is bounded before anything
// parses them recursively, and so is their size when maxBytes > 0 (bound
// names the option that sets it). It returns the normalized copy.
func (t Tool) normalize(maxBytes int, bound string) (Tool, error) {
	switch {
	case len(t.RawSchema) == 0 && t.InputSchema == nil:
		t.RawSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	case len(t.RawSchema) == 0:
		// A schema built in Go may share or loop pointers; marshalling
		// such a graph would recurse forever.
		if err := schemacheck.Check(t.InputSchema); err != nil {
			return t, fmt.Errorf("%w: tool %q: %w", errInvalidSchema, t.Name, err)
		}
		b, err := jsonx.Marshal(t.InputSchema)
		if err != nil {
			return t, fmt.Errorf("%w: tool %q: %v", errInvalidSchema, t.Name, err)
		}
		t.RawSchema = b
	}
	if err := schemacheck.ScanDepth(t.RawSchema, schemacheck.MaxDepth); err != nil {
		return t, fmt.Errorf("%w: tool %q: %w", errInvalidSchema, t.Name, err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t.RawSchema); err != nil {
		return t, fmt.Errorf("%w: tool %q: %v", errInvalidSchema, t.Name, err)
	}
	raw := buf.Bytes()
	if maxBytes > 0 && len(raw) > maxBytes {
		return t, fmt.Errorf("%w: tool %q: schema is %d bytes, the bound is %d (%s)", errTooLarge, t.Name, len(raw), maxBytes, bound)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return t, fmt.Errorf("%w: tool %q: the schema must be a JSON object, got %.40s", errInvalidSchema, t.Name, raw)
	}
	t.RawSchema = json.RawMessage(slices.Clone(raw))
	if err := schemacheck.ExactKeys(t.RawSchema); err != nil {
		return t, fmt.Errorf("%w: tool %q: %w", errInvalidSchema, t.Name, err)
	}
	if t.InputSchema == nil {
		// The validator's copy, in 2020-12 terms: what the server wrote
		// stays in RawSchema, for the provider.
		s, notes, err := schemacheck.Prepare(t.RawSchema)
		if err != nil {
			return t, fmt.Errorf("%w: tool %q: %w", errInvalidSchema, t.Name, err)
		}
		t.InputSchema, t.checked, t.Warnings = s, s, warningsOf(notes)
	} else if t.checked != t.InputSchema {
		t.Warnings = nil // a schema given in Go is validated as given
	}
	t.Warnings = slices.Clone(t.Warnings)
	for i := range t.Warnings {
		t.Warnings[i].Tool = t.Name
	}
	if len(t.InputSchema.Types) > 0 {
		return t, fmt.Errorf("%w: tool %q: the schema's type must be \"object\", got %q", errInvalidSchema, t.Name, t.InputSchema.Types)
	}
	if t.InputSchema.Type != "" && t.InputSchema.Type != "object" {
		return t, fmt.Errorf("%w: tool %q: the schema's type must be \"object\", got %q", errInvalidSchema, t.Name, t.InputSchema.Type)
	}
	if t.InputSchema.Type == "" {
		// Every provider refuses a tool schema without "type": "object"
		// (OpenAI: schema must be a JSON Schema of 'type: "object"', got
		// 'type: "None"'; Anthropic: input_schema.type: Field required),
		// and a tool's arguments are an object whatever the schema says:
		// the type is written in, in the bytes and in a copy of the
		// schema (the caller's is not modified).
		t.RawSchema = withObjectType(t.RawSchema)
		s := *t.InputSchema
		s.Type = "object"
		t.InputSchema = &s
	}
	// Defaults are not validated here: real catalogs hold defaults of the
	// wrong type (bfcl's cellbio_get_proteins); package execute answers
	// calls of such a tool with a result that blames the harness.
	if t.checked != t.InputSchema {
		if _, err := schemacheck.ResolvePlain(t.InputSchema); err != nil {
			return t, fmt.Errorf("%w: tool %q: %w", errInvalidSchema, t.Name, err)
		}
		t.checked = t.InputSchema
	}
	for _, f := range t.Injected {
		if _, ok := t.InputSchema.Properties[f]; !ok {
			return t, fmt.Errorf("%w: tool %q: injected field %q is not a property of the schema", errInvalidSchema, t.Name, f)
		}
	}
	if len(t.Injected) > 0 {
		if _, err := stripProperties(t.RawSchema, t.Injected); err != nil {
			return t, fmt.Errorf("%w: tool %q: %v", errInvalidSchema, t.Name, err)
		}
	}
	t.SearchHints = slices.Clone(t.SearchHints)
	t.Injected = slices.Clone(t.Injected)
	if t.Annotations != nil {
		a := *t.Annotations
		t.Annotations = &a
	}
	return t, nil
}

// withObjectType returns the compact object schema raw with "type":"object"
// as its first member.
func withObjectType(raw json.RawMessage) json.RawMessage {
	const member = `"type":"object"`
	out := make(json.RawMessage, 0, len(raw)+len(member)+1)
	out = append(out, '{')
	out = append(out, member...)
	if rest := raw[1:]; len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, raw[1:]...)
}

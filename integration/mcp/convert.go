package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolshelf/toolshelf/registry"
)

// convertTool turns a listed MCP tool into a registry tool named with the
// server's own tool name (the registry prefixes it). The go-sdk client
// decodes inputSchema into a map, so the schema's bytes come out with keys
// sorted: deterministic whatever order the server sends.
func convertTool(t *sdk.Tool) (registry.Tool, error) {
	schema := t.InputSchema
	if schema == nil {
		schema = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	raw, err := marshal(schema)
	if err != nil {
		return registry.Tool{}, fmt.Errorf("tool %q: inputSchema: %w", t.Name, err)
	}
	rt := registry.Tool{
		Name:        t.Name,
		Description: t.Description,
		RawSchema:   raw,
	}
	if a := convertAnnotations(t); a != nil {
		rt.Annotations = a
	}
	return rt, nil
}

// convertAnnotations maps the MCP hints. The go-sdk decodes readOnlyHint and
// idempotentHint as plain bools, so false and absent look alike: only true is
// recorded for them.
func convertAnnotations(t *sdk.Tool) *registry.Annotations {
	a := t.Annotations
	title := t.Title
	if a == nil && title == "" {
		return nil
	}
	out := &registry.Annotations{Title: title}
	if a != nil {
		if out.Title == "" {
			out.Title = a.Title
		}
		if a.ReadOnlyHint {
			out.ReadOnlyHint = ptr(true)
		}
		if a.IdempotentHint {
			out.IdempotentHint = ptr(true)
		}
		if a.DestructiveHint != nil {
			out.DestructiveHint = ptr(*a.DestructiveHint)
		}
		if a.OpenWorldHint != nil {
			out.OpenWorldHint = ptr(*a.OpenWorldHint)
		}
	}
	if *out == (registry.Annotations{}) {
		return nil
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// groupDescription picks the description of a server's group: the caller's,
// else the core's one rule, registry.ServerDescription (instructions, else
// serverInfo description, title or name).
func groupDescription(given string, init *sdk.InitializeResult) string {
	if given != "" {
		return given
	}
	if init == nil {
		return ""
	}
	var description, title, name string
	if si := init.ServerInfo; si != nil {
		description, title, name = si.Description, si.Title, si.Name
	}
	return registry.ServerDescription(init.Instructions, description, title, name)
}

// resultText renders a tools/call result for the model: text content joined
// with newlines, other content described in one line each, and the
// structured content as JSON when there is no content at all.
func resultText(res *sdk.CallToolResult) string {
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil {
				if r.Text != "" {
					parts = append(parts, r.Text)
				} else {
					parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
				}
			}
		default:
			if b, err := marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// sameTools reports whether listed (converted, server names) equals the
// group's tools in snap: same names, descriptions, schemas and annotations.
func sameTools(snap *registry.Snapshot, group string, listed []registry.Tool) bool {
	a, r, c := diffNames(snap, group, listed)
	return len(a)+len(r)+len(c) == 0
}

// sameDefinition reports whether listed, a tool as the server lists it
// (its own name), is held, the registry's tool of that name: equal
// canonical definitions (registry.Tool.CanonicalDefinition), the test
// sessions pin and compare by too.
func sameDefinition(held *registry.Tool, listed registry.Tool) bool {
	listed.Name = held.Name
	return bytes.Equal(held.CanonicalDefinition(), listed.CanonicalDefinition())
}

// diffNames compares the old and new tools of a group by their server
// names, and returns those names.
func diffNames(snap *registry.Snapshot, group string, listed []registry.Tool) (added, removed, changed []string) {
	old := map[string]*registry.Tool{}
	for _, t := range snap.Tools() {
		if t.Group == group {
			old[t.OriginalName] = t
		}
	}
	seen := map[string]bool{}
	for i := range listed {
		l := &listed[i]
		seen[l.Name] = true
		h, ok := old[l.Name]
		switch {
		case !ok:
			added = append(added, l.Name)
		case !sameDefinition(h, *l):
			changed = append(changed, l.Name)
		}
	}
	for n := range old {
		if !seen[n] {
			removed = append(removed, n)
		}
	}
	return added, removed, changed
}

// exposed maps server names of group's tools to the names snap exposes
// them under (mcp__<server>__<tool>, or the registry's alias), sorted; a
// name snap does not hold (a tool the registry rejected) is left out.
func exposed(snap *registry.Snapshot, group string, names []string) []string {
	if len(names) == 0 {
		return nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []string
	for t := range snap.All() {
		if t.Group == group && want[t.OriginalName] {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

// marshal is json.Marshal without HTML escaping ("<" stays "<", as the
// registry keeps it) and without the encoder's trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

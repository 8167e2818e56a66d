package registry

import (
	"bytes"
	"encoding/json"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// CanonicalDefinition returns t as the model is shown it — name,
// description, input schema, annotations — in canonical JSON: keys sorted
// at every level, no insignificant space, numbers as written, no HTML
// escaping. Two definitions are the same tool to the model exactly when
// these bytes are equal, whatever key order or spacing their server used.
//
// It is the one answer to "is this the same definition": a session
// compares the definitions Sync finds by it and pins a tool by its SHA-256
// (request.PendingChange), and integration/mcp decides which of a server's
// tools changed by it.
func (t *Tool) CanonicalDefinition() []byte {
	def := map[string]any{"name": t.Name, "description": t.Description}
	if len(t.RawSchema) > 0 {
		def["input_schema"] = canonicalValue(t.RawSchema)
	}
	if t.Annotations != nil {
		a, _ := jsonx.Marshal(t.Annotations)
		def["annotations"] = canonicalValue(a)
	}
	b, _ := jsonx.Marshal(def) // maps marshal with sorted keys
	return b
}

// canonicalValue decodes raw for re-encoding with sorted keys; numbers
// keep their text. Raw that is not JSON (the registry validated it, so
// only a bug) is kept as a string, still compared.
func canonicalValue(raw []byte) any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return string(raw)
	}
	return v
}

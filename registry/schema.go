package registry

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// stripProperties removes the named top-level properties (and their entries
// in "required") from a compact object schema, keeping every other byte and
// the key order.
func stripProperties(schema []byte, names []string) (json.RawMessage, error) {
	ms, err := jsonx.Members(schema)
	if err != nil {
		return nil, err
	}
	out := make([]jsonx.Member, 0, len(ms))
	for _, m := range ms {
		switch m.Key {
		case "properties":
			props, err := jsonx.Members(m.Value)
			if err != nil {
				return nil, fmt.Errorf("properties: %w", err)
			}
			props = slices.DeleteFunc(props, func(p jsonx.Member) bool { return slices.Contains(names, p.Key) })
			m.Value = jsonx.AppendObject(nil, props)
		case "required":
			var req []string
			if err := json.Unmarshal(m.Value, &req); err != nil {
				return nil, fmt.Errorf("required: %w", err)
			}
			req = slices.DeleteFunc(req, func(r string) bool { return slices.Contains(names, r) })
			b, err := jsonx.Marshal(req)
			if err != nil {
				return nil, err
			}
			if len(req) == 0 {
				continue
			}
			m.Value = b
		}
		out = append(out, m)
	}
	return jsonx.AppendObject(nil, out), nil
}

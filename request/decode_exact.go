package request

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// unmarshalExact decodes data into v (a pointer to a struct) as
// json.Unmarshal does, then refuses what encoding/json reads differently
// from a provider: a key that is a case variant of a field's name ("TYPE"
// beside "type", "Role"), which encoding/json takes for the field (the
// last one wins) while the provider — and the session, which re-sends
// native parts verbatim — reads the exact key; and a field's key given
// twice. Without it, {"type":"tool_use",…,"TYPE":"thinking"} decodes as a
// thinking block: a tool call never dispatched, re-sent verbatim.
func unmarshalExact(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	return exactKeys(data, reflect.TypeOf(v).Elem(), "")
}

// exactPlans caches the JSON field names of each struct type the decoders
// read (as encoding/json caches its own), so that checking keys costs no
// allocation per object.
var exactPlans sync.Map // reflect.Type → *exactPlan

type exactPlan struct {
	names []string
	types []reflect.Type
}

func planFor(t reflect.Type) *exactPlan {
	if p, ok := exactPlans.Load(t); ok {
		return p.(*exactPlan)
	}
	p := &exactPlan{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p.names = append(p.names, name)
		p.types = append(p.types, f.Type)
	}
	v, _ := exactPlans.LoadOrStore(t, p)
	return v.(*exactPlan)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// exactKeys checks the keys of data, read as a value of type t, at every
// level that t describes (json.RawMessage members are the provider's own
// bytes and are not read as fields).
func exactKeys(data []byte, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if string(data) == "null" {
		return nil
	}
	switch {
	case t == rawMessageType:
		return nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		return jsonx.EachElement(data, func(v []byte) error {
			return exactKeys(v, t.Elem(), path)
		})
	case t.Kind() != reflect.Struct:
		return nil
	}
	p := planFor(t)
	var seen uint64
	return jsonx.EachMember(data, func(key, value []byte) error {
		for i, name := range p.names {
			if string(key) != name {
				continue
			}
			if i < 64 {
				if seen&(1<<i) != 0 {
					return fmt.Errorf("%skey %q appears twice", path, name)
				}
				seen |= 1 << i
			}
			if !composite(p.types[i]) {
				return nil
			}
			return exactKeys(value, p.types[i], path+name+".")
		}
		for _, name := range p.names {
			if jsonx.FoldEqual(key, name) {
				return fmt.Errorf("%skey %.40q is a case variant of %q (keys match exactly)", path, key, name)
			}
		}
		return nil
	})
}

// composite reports whether values of t have keys to check.
func composite(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != rawMessageType && (t.Kind() == reflect.Struct || t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8)
}

package execute

import (
	"cmp"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// redacted stands in for a host-filled value in every text the dispatcher
// writes after injection.
const redacted = "[host value]"

// redactor removes injected (host-only) values from text, by value: a
// message may quote one wherever the schema puts the constraint that
// failed (under if/then, allOf, anyOf, dependentSchemas ...), so no
// classification by pointer can be trusted to catch every quote. Each
// string is removed as written and in the escaped forms jsonschema-go's
// messages (Go %q) and JSON use; each number in the forms its messages
// print. Booleans and null are not secrets and are left alone. The
// handler's own result is its own: the redactor does not touch it.
type redactor struct {
	forms []string // longest first, then bytewise: deterministic
}

// newRedactor collects the forms of the injected values. Nil when there
// is nothing to hide.
func newRedactor(vals map[string]any) *redactor {
	if len(vals) == 0 {
		return nil
	}
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" {
			seen[s] = true
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			add(x)
			q := strconv.Quote(x)
			add(q[1 : len(q)-1])
			add(string(jsonx.AppendStringBody(nil, x)))
		case int64:
			add(strconv.FormatInt(x, 10))
		case uint64:
			add(strconv.FormatUint(x, 10))
		case float64:
			add(strconv.FormatFloat(x, 'g', -1, 64))
			add(strconv.FormatFloat(x, 'f', -1, 64))
			if r := new(big.Rat); r.SetFloat64(x) != nil {
				add(r.String())
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, v := range vals {
		// Normalize whatever Go value the host gave to its JSON form, as
		// the validator and the handler see it.
		b, err := jsonx.Marshal(v)
		if err != nil {
			continue
		}
		pv, _, err := parseValue(b, 0)
		if err != nil {
			continue
		}
		walk(pv)
	}
	if len(seen) == 0 {
		return nil
	}
	r := &redactor{}
	for s := range seen {
		r.forms = append(r.forms, s)
	}
	slices.SortFunc(r.forms, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return r
}

// text returns s with every form of every injected value replaced.
func (r *redactor) text(s string) string {
	if r == nil {
		return s
	}
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, redacted)
		}
	}
	return s
}

// scrub redacts an event's free text.
func (c *call) scrub(ev Event) Event {
	if c.red != nil {
		ev.Detail = c.red.text(ev.Detail)
		ev.Pointer = c.red.text(ev.Pointer)
	}
	return ev
}

// hookRedactor extends the call's redactor with the injected fields of
// params a hook rewrote: a hook is host code and may set them.
func (c *call) hookRedactor(obj map[string]any) *redactor {
	vals := map[string]any{}
	for _, f := range c.t.Injected {
		if v, ok := obj[f]; ok {
			vals[f] = v
		}
	}
	for _, f := range c.red.values() {
		vals["\x00"+f] = f
	}
	c.red = newRedactor(vals)
	return c.red
}

// values returns the string forms the redactor hides.
func (r *redactor) values() []string {
	if r == nil {
		return nil
	}
	return r.forms
}

package execute

import (
	"context"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/visibility"
	"github.com/toolshelf/toolshelf/registry"
)

// selects reports whether a rule or hook pattern selects a call of name: a
// name pattern matches the name; "@hint" matches a known tool carrying the
// hint (visibility.HasHint), never an unknown one.
func selects(p, name string, t *registry.Tool) bool {
	if h, ok := strings.CutPrefix(p, "@"); ok {
		hint, err := registryx.ParseHint(h)
		return err == nil && t != nil && visibility.HasHint(t, hint)
	}
	return toolname.MatchPattern(p, name)
}

// deniesAll reports whether the dispatcher's rules deny every call of t — a
// Deny rule selects it by name or by annotation, or no rule does and the
// default is Deny — and names the rule ("Deny(mcp__vault__*)", or
// "default"). Rules see only the name and the tool, never the params, so
// such a tool can never run: package request leaves it out of tools[],
// the tool_search index and search results, as it does a hidden tool. A
// tool an Ask rule selects stays visible: the user may say yes.
func (d *Dispatcher) deniesAll(t *registry.Tool) (rule string, denied bool) {
	if t == nil {
		return "", false
	}
	vd := d.permit(t.Name, t)
	return vd.rule, vd.action == Deny
}

// denied answers a call a rule (or the default) denies. Nothing about the
// tool is in it: not its schema, not whether it exists.
func (d *Dispatcher) denied(ctx context.Context, c *call, vd verdict) registry.Result {
	d.report(ctx, c, Event{Kind: EventDenied, Rule: vd.rule})
	return errResult(textDenied(c.target))
}

// loadDenied answers a call of a deferred tool whose schema was never
// loaded in a session whose rules deny tool_search: loading it by calling
// it would go around the rule.
func (d *Dispatcher) loadDenied(ctx context.Context, c *call, vd verdict) registry.Result {
	d.report(ctx, c, Event{Kind: EventDenied, Rule: vd.rule, Detail: "loading a deferred tool's schema: tool_search is denied"})
	return errResult(textLoadDenied(c.target))
}

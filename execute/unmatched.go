package execute

import (
	"context"
	"fmt"

	"github.com/toolshelf/toolshelf/internal/rulecheck"
)

// rules returns the permission rules and hook patterns, in Options order,
// for a session to check against its tools: a rule that selects no tool is
// most often a misspelt name, and a misspelt Deny leaves the tool callable.
func (d *Dispatcher) rules() []rulecheck.Rule {
	out := make([]rulecheck.Rule, 0, len(d.opts.Permissions)+len(d.opts.Hooks))
	for _, r := range d.opts.Permissions {
		out = append(out, rulecheck.Rule{Text: r.String(), Pattern: r.Pattern, Source: r.Source})
	}
	for _, h := range d.opts.Hooks {
		if h.Pattern != "" {
			out = append(out, rulecheck.Rule{Text: fmt.Sprintf("hook %q (%s)", h.Name, h.Pattern), Pattern: h.Pattern})
		}
	}
	return out
}

// ruleUnmatched emits an [Event] "rule_unmatched" (level Warn): a session
// (request.NewSession) found that rule selects none of its tools.
func (d *Dispatcher) ruleUnmatched(ctx context.Context, session, rule, detail string) {
	d.emit(ctx, Event{Kind: eventRuleUnmatched, Session: session, Rule: rule, Detail: detail})
}

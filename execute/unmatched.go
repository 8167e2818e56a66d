package execute

import "context"

// Options returns the options d was made with, after New's defaults. Its
// slices are d's own: read them, never modify them. A session reads the
// permission rules and hook patterns to report those that select no tool
// (request.Session.RuleWarnings).
func (d *Dispatcher) Options() Options { return d.opts }

// RuleUnmatched reports, as the dispatcher's own decisions are (the event
// "rule_unmatched", level Warn), that rule selects none of session's tools:
// a misspelt name, most often, and a misspelt Deny leaves the tool it meant
// callable. detail says which names are close. request.NewSession calls it
// for every rule it finds; a harness that checks rules itself may.
func (d *Dispatcher) RuleUnmatched(ctx context.Context, session, rule, detail string) {
	d.emit(ctx, Event{Kind: EventRuleUnmatched, Session: session, Rule: rule, Detail: detail})
}

package execute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
)

// ErrRule reports a permission rule that cannot be parsed or used.
var ErrRule = errors.New("invalid permission rule")

// Action is what a permission rule decides.
type Action uint8

// The three actions, weakest first. When several rules match a name the
// strongest wins: deny over ask over allow.
const (
	// Allow runs the call.
	Allow Action = iota + 1
	// Ask runs the call only if [Options.Ask] approves it.
	Ask
	// Deny refuses the call.
	Deny
)

func (a Action) String() string {
	switch a {
	case Allow:
		return "Allow"
	case Ask:
		return "Ask"
	case Deny:
		return "Deny"
	}
	return "Unset"
}

// Rule is one permission rule: an action for the tool names its pattern
// matches. Patterns match the whole target name, with * for any run of
// characters, as [deferral.Match].
type Rule struct {
	Action  Action
	Pattern string
	// Source names where the rule came from ("user", "project" ...); it is
	// only reported.
	Source string
}

// String returns the rule in the form [ParseRule] reads: Deny(ImageGen).
func (r Rule) String() string { return r.Action.String() + "(" + r.Pattern + ")" }

// ParseRule parses "Allow(pattern)", "Ask(pattern)" or "Deny(pattern)".
func ParseRule(s string) (Rule, error) {
	t := strings.TrimSpace(s)
	open := strings.IndexByte(t, '(')
	if open < 0 || !strings.HasSuffix(t, ")") {
		return Rule{}, fmt.Errorf("%w %q: want Allow(pattern), Ask(pattern) or Deny(pattern)", ErrRule, clip(s, 120))
	}
	r := Rule{Pattern: strings.TrimSpace(t[open+1 : len(t)-1])}
	switch t[:open] {
	case "Allow":
		r.Action = Allow
	case "Ask":
		r.Action = Ask
	case "Deny":
		r.Action = Deny
	default:
		return Rule{}, fmt.Errorf("%w %q: unknown action %q: want Allow, Ask or Deny", ErrRule, clip(s, 120), clip(t[:open], 40))
	}
	if err := r.check(); err != nil {
		return Rule{}, err
	}
	return r, nil
}

// MustRules parses rules written in code; it panics on a bad rule.
func MustRules(rules ...string) []Rule {
	out := make([]Rule, len(rules))
	for i, s := range rules {
		r, err := ParseRule(s)
		if err != nil {
			panic(err)
		}
		out[i] = r
	}
	return out
}

func (r Rule) check() error {
	if r.Action < Allow || r.Action > Deny {
		return fmt.Errorf("%w %q: action must be Allow, Ask or Deny", ErrRule, r.String())
	}
	if err := deferral.CheckPattern(r.Pattern); err != nil {
		return fmt.Errorf("%w %q: %v", ErrRule, clip(r.String(), 120), err)
	}
	return nil
}

// AskRequest is what the approver sees for a call an Ask rule matched.
type AskRequest struct {
	// Session is the session's ID.
	Session string
	// Tool is the target tool's name (never "defer_execute").
	Tool string
	// Via is "defer_execute" when the call came through the wrapper.
	Via string
	// Params are the validated params, defaults applied, without the
	// host-injected fields (which may hold secrets).
	Params json.RawMessage
	// Rule is the rule that asked.
	Rule Rule
}

// An Approver decides an [AskRequest]: true runs the call. An error counts
// as a rejection and is reported, never raised.
type Approver func(ctx context.Context, req AskRequest) (bool, error)

// verdict is the permission decision for a target name.
type verdict struct {
	action Action
	rule   string // "Deny(ImageGen)" or "default"
	r      Rule
}

// permit evaluates the rules on the target name: the strongest matching
// action wins; among rules with that action the first reported.
func (d *Dispatcher) permit(target string) verdict {
	best := -1
	for i := range d.opts.Rules {
		r := &d.opts.Rules[i]
		if !deferral.Match(r.Pattern, target) {
			continue
		}
		if best < 0 || r.Action > d.opts.Rules[best].Action {
			best = i
		}
	}
	if best < 0 {
		return verdict{action: d.opts.Default, rule: "default"}
	}
	r := d.opts.Rules[best]
	name := r.String()
	if r.Source != "" {
		name += " [" + r.Source + "]"
	}
	return verdict{action: r.Action, rule: name, r: r}
}

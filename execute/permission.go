package execute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// ErrPermission marks a permission rule (or hook pattern) that cannot be
// parsed or used: errors from [New] and [ParsePermission] wrap it (and
// [MustPermissions] panics with one), so a harness loading rules from its
// settings tells a bad rule from other failures with errors.Is.
var ErrPermission = errors.New("execute: invalid permission rule")

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

// Permission is one permission rule: an action for the tool names its pattern
// matches. Patterns match the whole target name, with * for any run of
// characters, as the rules of a [deferral.Layer].
type Permission struct {
	Action  Action
	Pattern string
	// Source names where the rule came from ("user", "project" ...); it is
	// only reported.
	Source string
}

// String returns the rule in the form [ParsePermission] reads: Deny(ImageGen).
func (r Permission) String() string { return r.Action.String() + "(" + r.Pattern + ")" }

// ParsePermission parses "Allow(pattern)", "Ask(pattern)" or "Deny(pattern)".
// A pattern is a tool-name pattern with * wildcards, or "@" and an
// annotation name — @readonly, @destructive, @idempotent, @openworld —
// which selects tools by their MCP annotations as the registry reads them
// (an untrusted server's claims never widen: its tools are never
// @readonly; see [registry.Group.TrustAnnotations]). An unknown annotation name is an error.
func ParsePermission(s string) (Permission, error) {
	t := strings.TrimSpace(s)
	open := strings.IndexByte(t, '(')
	if open < 0 || !strings.HasSuffix(t, ")") {
		return Permission{}, fmt.Errorf("%w %q: want Allow(pattern), Ask(pattern) or Deny(pattern)", ErrPermission, clip(s, 120))
	}
	r := Permission{Pattern: strings.TrimSpace(t[open+1 : len(t)-1])}
	switch t[:open] {
	case "Allow":
		r.Action = Allow
	case "Ask":
		r.Action = Ask
	case "Deny":
		r.Action = Deny
	default:
		return Permission{}, fmt.Errorf("%w %q: unknown action %q: want Allow, Ask or Deny", ErrPermission, clip(s, 120), clip(t[:open], 40))
	}
	if err := r.check(); err != nil {
		return Permission{}, err
	}
	return r, nil
}

// MustPermissions parses rules written in code; it panics on a bad rule.
func MustPermissions(rules ...string) []Permission {
	out := make([]Permission, len(rules))
	for i, s := range rules {
		r, err := ParsePermission(s)
		if err != nil {
			panic(err)
		}
		out[i] = r
	}
	return out
}

func (r Permission) check() error {
	if r.Action < Allow || r.Action > Deny {
		return fmt.Errorf("%w %q: action must be Allow, Ask or Deny", ErrPermission, r.String())
	}
	if name, ok := strings.CutPrefix(r.Pattern, "@"); ok {
		if _, err := registryx.ParseHint(name); err != nil {
			return fmt.Errorf("%w %q: %v", ErrPermission, clip(r.String(), 120), err)
		}
		return nil
	}
	if err := toolname.CheckPattern(r.Pattern); err != nil {
		return fmt.Errorf("%w %q: %v", ErrPermission, clip(r.String(), 120), err)
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
	Rule Permission
}

// An Approver decides an [AskRequest]: true runs the call. An error counts
// as a rejection and is reported, never raised.
type Approver func(ctx context.Context, req AskRequest) (bool, error)

// verdict is the permission decision for a target name.
type verdict struct {
	action Action
	rule   string // "Deny(ImageGen)" or "default"
	r      Permission
}

// permit evaluates the rules on the target's names ([guardNames]) and,
// when t is known, its annotations: the strongest action of a rule
// selecting the call wins; among rules with that action the first
// reported.
func (d *Dispatcher) permit(target string, t *registry.Tool) verdict {
	names, n := guardNames(target, t)
	best := -1
	for i := range d.opts.Permissions {
		r := &d.opts.Permissions[i]
		if !selectsAny(r.Pattern, names[:n], t) {
			continue
		}
		if best < 0 || r.Action > d.opts.Permissions[best].Action {
			best = i
		}
	}
	if best < 0 {
		return verdict{action: d.opts.Default, rule: "default"}
	}
	r := d.opts.Permissions[best]
	name := r.String()
	if r.Source != "" {
		name += " [" + r.Source + "]"
	}
	return verdict{action: r.Action, rule: name, r: r}
}

package request

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/rulecheck"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// A RuleWarning is a rule of the session's configuration that selects no
// tool of its snapshot: a permission rule or hook pattern of its
// dispatcher, a rule of its policy's layers, a pattern of its mode's
// allowlist. Such a rule is most often a misspelt name, and a misspelt
// Deny leaves the tool it meant visible and callable. A rule that can
// select the tools of a server named in [Config.Pending] is not reported.
type RuleWarning struct {
	// Rule is the rule as written: "Deny(write_file)", "Defer(mcp__gh__*)",
	// `hook "audit" (mcp__git__*)`, `mode "ask" allows (Raed)`.
	Rule string
	// Source is where the rule came from: its layer's name or its
	// permission rule's Source; "" when unknown.
	Source string
	// DidYouMean are up to three names (or server patterns,
	// mcp__<server>__*) close to the rule's pattern, best first.
	DidYouMean []string
}

// String reads: Deny(write_file) [user] selects no tool; did you mean
// mcp__filesystem__write_file?
func (w RuleWarning) String() string {
	var b strings.Builder
	b.WriteString(w.Rule)
	if w.Source != "" {
		b.WriteString(" [" + w.Source + "]")
	}
	b.WriteString(" selects no tool")
	if d := w.detail(); d != "" {
		b.WriteString("; " + d)
	}
	return b.String()
}

func (w RuleWarning) detail() string {
	if len(w.DidYouMean) == 0 {
		return ""
	}
	return "did you mean " + strings.Join(w.DidYouMean, ", ") + "?"
}

// RuleWarnings returns the rules of the session's configuration that select
// no tool of the snapshot it started on, in configuration order: the
// dispatcher's permission rules and hook patterns, the policy's layers,
// the mode's allowlist. NewSession also reports each one to the
// dispatcher's events ("rule_unmatched", level Warn). Log them: a harness
// that starts with a warning is running without a rule it meant to have.
func (s *Session) RuleWarnings() []RuleWarning {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RuleWarning, len(s.ruleWarnings))
	for i, w := range s.ruleWarnings {
		w.DidYouMean = append([]string(nil), w.DidYouMean...)
		out[i] = w
	}
	return out
}

// unmatchedRules finds the rules of cfg that select no tool of its snapshot
// and reports each to obs, the harness's Observer (nil: none).
func unmatchedRules(cfg *Config, obs execute.Observer) []RuleWarning {
	var rules []rulecheck.Rule
	d := cfg.Dispatcher
	if d != nil {
		opts := d.Options()
		for _, r := range opts.Permissions {
			rules = append(rules, rulecheck.Rule{Text: r.String(), Pattern: r.Pattern, Source: r.Source})
		}
		for _, h := range opts.Hooks {
			if h.Pattern != "" {
				rules = append(rules, rulecheck.Rule{Text: fmt.Sprintf("hook %q (%s)", h.Name, h.Pattern), Pattern: h.Pattern})
			}
		}
	}
	if cfg.Policy != nil {
		for _, l := range cfg.Policy.Layers {
			for _, r := range l.Rules {
				t := strings.TrimSpace(r)
				_, p, _ := strings.Cut(strings.TrimSuffix(t, ")"), "(")
				rules = append(rules, rulecheck.Rule{Text: t, Pattern: strings.TrimSpace(p), Source: l.Name})
			}
		}
	}
	for _, p := range cfg.View.Mode.Allow {
		rules = append(rules, rulecheck.Rule{Text: "mode " + quote(cfg.View.Mode.Name) + " allows (" + p + ")", Pattern: p})
	}
	if len(rules) == 0 {
		return nil
	}
	found := rulecheck.Unmatched(rules, ruleNames(cfg.Snapshot), cfg.Pending)
	if len(found) == 0 {
		return nil
	}
	out := make([]RuleWarning, len(found))
	for i, f := range found {
		out[i] = RuleWarning{Rule: f.Rule.Text, Source: f.Rule.Source, DidYouMean: f.Suggestions}
		if obs != nil {
			obs.Event(context.Background(), execute.Event{Kind: execute.EventRuleUnmatched, Session: cfg.ID, Rule: f.Rule.Text, Detail: out[i].String()})
		}
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }

// ruleNames returns every name a rule may be written with: each tool's
// exposed name, the mcp__ name of an aliased tool, and the entry tools.
func ruleNames(snap *registry.Snapshot) []string {
	tools := snap.Tools()
	names := make([]string, 0, len(tools)+2)
	for _, t := range tools {
		names = append(names, t.Name)
		if t.Aliased() {
			names = append(names, toolname.MCPPrefix+t.Group+"__"+t.OriginalName)
		}
	}
	return append(names, registry.ToolSearchName, registry.DeferExecuteName)
}

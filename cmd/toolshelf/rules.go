package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/rulecheck"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/visibility"
	"github.com/toolshelf/toolshelf/registry"
)

// ruleSet is a --rules file: one rule a line, every kind a harness writes —
// Defer(pattern) and NoDefer(pattern) (a deferral layer), Allow(pattern),
// Ask(pattern) and Deny(pattern) (permission rules, as execute.Options
// takes them). Blank lines and lines starting with # are ignored.
type ruleSet struct {
	path  string
	layer deferral.Layer
	perms []execute.Permission
	disp  *execute.Dispatcher // nil without permission rules
}

// readRuleSet reads the --rules file at path; an empty path is no rules.
func readRuleSet(path string) (*ruleSet, error) {
	r := &ruleSet{path: path}
	if path == "" {
		return r, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--rules: %v", err)
	}
	// The permission rules leave blank lines behind, so that the layer's
	// errors keep their line numbers.
	lines := strings.Split(string(text), "\n")
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "Allow(") && !strings.HasPrefix(t, "Ask(") && !strings.HasPrefix(t, "Deny(") {
			continue
		}
		p, err := execute.ParsePermission(t)
		if err != nil {
			return nil, fmt.Errorf("%s, line %d: %v", path, i+1, err)
		}
		p.Source = path
		r.perms = append(r.perms, p)
		lines[i] = ""
	}
	if r.layer, err = deferral.ParseLayer(path, strings.Join(lines, "\n")); err != nil {
		return nil, fmt.Errorf("%v (a rule is Defer, NoDefer, Allow, Ask or Deny of a pattern)", nameFile(path, err))
	}
	if len(r.perms) > 0 {
		if r.disp, err = execute.New(&execute.Options{Permissions: r.perms}); err != nil {
			return nil, nameFile(path, err)
		}
	}
	return r, nil
}

// policy is the catalog policy with the rules on top: the layer, and the
// permission rules' Deny, which leaves a tool out of every request as a
// session with these rules does.
func (r *ruleSet) policy() *deferral.Policy {
	p := &deferral.Policy{}
	if len(r.layer.Rules) > 0 {
		p.Layers = []deferral.Layer{r.layer}
	}
	if r.disp != nil {
		p.Denied = r.disp.Denied
	}
	return p
}

// unmatched returns the rules that select no tool of snap, with the names
// close to each: a misspelt Deny leaves the tool it meant callable.
func (r *ruleSet) unmatched(snap *registry.Snapshot) []string {
	var rules []rulecheck.Rule
	for _, p := range r.perms {
		rules = append(rules, rulecheck.Rule{Text: p.String(), Pattern: p.Pattern})
	}
	for _, s := range r.layer.Rules {
		_, p, _ := strings.Cut(strings.TrimSuffix(s, ")"), "(")
		rules = append(rules, rulecheck.Rule{Text: s, Pattern: p})
	}
	var names []string
	for _, t := range snap.Tools() {
		names = append(names, t.Name)
		if t.Aliased() {
			names = append(names, toolname.MCPPrefix+t.Group+"__"+t.OriginalName)
		}
	}
	names = append(names, registry.ToolSearchName, registry.DeferExecuteName)
	var out []string
	for _, f := range rulecheck.Unmatched(rules, names, nil) {
		s := f.Rule.Text + " selects no tool"
		if len(f.Suggestions) > 0 {
			s += "; did you mean " + strings.Join(f.Suggestions, ", ") + "?"
		}
		out = append(out, s)
	}
	return out
}

// warnUnmatched writes one warning line per rule that selects no tool.
func (r *ruleSet) warnUnmatched(w io.Writer, cmd string, snap *registry.Snapshot) []string {
	ws := r.unmatched(snap)
	for _, s := range ws {
		fmt.Fprintf(w, "toolshelf %s: warning: %s: %s\n", cmd, r.path, s)
	}
	return ws
}

// effect returns what the permission rules remove from the model's view —
// the tools whose every call they deny (hidden) — and the visible tools an
// Ask rule selects (each call needs approval), sorted.
func (r *ruleSet) effect(plan *deferral.Plan) (denied, asked []string) {
	if r.disp == nil {
		return nil, nil
	}
	d := r.disp
	for _, t := range plan.Snapshot().Tools() {
		if _, ok := d.Denied(t); ok {
			denied = append(denied, t.Name)
			continue
		}
		if plan.State(t.Name) == deferral.Hidden {
			continue
		}
		if slices.ContainsFunc(r.perms, func(p execute.Permission) bool { return p.Action == execute.Ask && selectsTool(p.Pattern, t) }) {
			asked = append(asked, t.Name)
		}
	}
	slices.Sort(denied)
	slices.Sort(asked)
	return denied, asked
}

// selectsTool reports whether a rule pattern selects t, by name (or the
// mcp__ name of an aliased tool) or by a trusted annotation.
func selectsTool(p string, t *registry.Tool) bool {
	if h, ok := strings.CutPrefix(p, "@"); ok {
		hint, err := registryx.ParseHint(h)
		return err == nil && visibility.HasHint(t, hint)
	}
	if toolname.MatchPattern(p, t.Name) {
		return true
	}
	return t.Aliased() && toolname.MatchPattern(p, toolname.MCPPrefix+t.Group+"__"+t.OriginalName)
}

// writeEffect writes what the rules remove and what they ask about.
func writeEffect(w io.Writer, denied, asked []string) {
	if len(denied) > 0 {
		fmt.Fprintf(w, "denied by --rules         %d tools, left out of every request: %s\n", len(denied), clip(strings.Join(denied, ", "), 200))
	}
	if len(asked) > 0 {
		fmt.Fprintf(w, "asked by --rules          %d tools, visible; each call waits for approval: %s\n", len(asked), clip(strings.Join(asked, ", "), 200))
	}
}

// rulesUsage is the --rules flag's usage.
const rulesUsage = "rules `FILE`: one a line, Defer(pattern) or NoDefer(pattern) (deferral), Allow, Ask or Deny(pattern) (permission: Deny leaves the tool out); a rule that selects no tool is reported"

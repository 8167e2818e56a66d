package deferral

import (
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/estimate"
	"github.com/toolshelf/toolshelf/registry"
)

// Default is the global default for tools that no rule, flag or group decides.
type Default uint8

// The global defaults. The zero value keeps tools resident.
const (
	// DefaultResident keeps undecided tools resident.
	DefaultResident Default = iota
	// DefaultDefer defers undecided tools.
	DefaultDefer
	// DefaultAuto defers the deferrable tools (undecided ones and those whose
	// flag or group says they may be deferred) only when the resident
	// definitions would exceed [Policy.AutoShare] of [Policy.Window].
	DefaultAuto
)

func (d Default) String() string {
	switch d {
	case DefaultDefer:
		return "defer"
	case DefaultAuto:
		return "auto"
	}
	return "resident"
}

// defaultAutoShare is the share of the context window above which auto mode
// defers, as Claude Code's auto:10.
const defaultAutoShare = 0.10

// Policy decides which visible tools are resident and which are deferred.
// The zero Policy keeps every tool resident unless its flag or group says
// otherwise.
type Policy struct {
	// Default applies to tools no rule, flag or group decides.
	Default Default
	// Layers are override layers, lowest precedence first. Across all of
	// them NoDefer wins over Defer.
	Layers []Layer
	// Window is the model's context window in tokens; DefaultAuto needs it.
	Window int
	// AutoShare is the share of Window that resident definitions may use
	// before auto mode defers; 0 means 0.10 (a tenth of the window).
	AutoShare float64
	// Size returns a tool's size in tokens for auto mode. Nil uses a
	// character estimate (package budget supplies exact counts).
	Size func(*registry.Tool) int
	// Denied reports the tools whose every call the harness's permission
	// rules deny, and the rule: they are hidden like tools outside the
	// mode, so that no request shows them. Package request sets it from
	// its dispatcher (whose rules deny every call of the tool) when it is nil.
	Denied func(*registry.Tool) (rule string, denied bool)
}

// estimateSize is the default tool size for auto mode: description at 4
// characters a token plus schema at 1.3, plus the name.
func estimateSize(t *registry.Tool) int {
	return estimate.Prose(t.Name) + estimate.Prose(t.Description) + estimate.JSON(t.ModelSchema())
}

// Plan computes the plan for every tool of snap as seen through view.
func (p *Policy) Plan(snap *registry.Snapshot, view View) (*Plan, error) {
	if p.Default == DefaultAuto && p.Window <= 0 {
		return nil, fmt.Errorf("deferral: auto default needs a context window (Policy.Window > 0), got %d", p.Window)
	}
	if p.AutoShare < 0 || p.AutoShare > 1 {
		return nil, fmt.Errorf("deferral: AutoShare %v is outside [0, 1]", p.AutoShare)
	}
	layers := make([][]rule, len(p.Layers))
	for i, l := range p.Layers {
		rules, err := l.rules()
		if err != nil {
			return nil, err
		}
		layers[i] = rules
	}
	mode, tier := view.effective()
	if err := mode.check(); err != nil {
		return nil, err
	}
	plan := &Plan{snap: snap, index: map[string]int{}}
	var autoCandidates []int
	visibleSize := 0
	for _, t := range snap.Tools() {
		d := Decision{Name: t.Name}
		if t.Aliased() {
			d.AliasOf = t.OriginalName
		}
		g, _ := snap.Group(t.Group)
		soft := false
		switch {
		case !mode.allows(t):
			d.State, d.Reason = Hidden, fmt.Sprintf("hidden: outside mode %q", modeName(mode))
		case p.denies(t, &d):
		case tier == registry.TierCore && snap.TierOf(t) == registry.TierFull:
			d.State, d.Reason = Hidden, "hidden: full-tier tool in a core-tier session (elevate to see it)"
		case t.Source == registry.SourceSelfBuilt:
			d.State, d.Reason = Deferred, "self-built tools are always deferred"
		default:
			soft = p.decide(layers, t, g, &d)
		}
		if d.State != Hidden && p.Default == DefaultAuto {
			visibleSize += p.size(t)
			if soft {
				autoCandidates = append(autoCandidates, len(plan.decisions))
			}
		}
		plan.index[t.Name] = len(plan.decisions)
		plan.decisions = append(plan.decisions, d)
	}
	if p.Default == DefaultAuto {
		share := p.AutoShare
		if share == 0 {
			share = defaultAutoShare
		}
		limit := int(share * float64(p.Window))
		over := visibleSize > limit
		for _, i := range autoCandidates {
			d := &plan.decisions[i]
			if over {
				d.State = Deferred
				d.Reason += fmt.Sprintf("; auto: visible definitions %d tokens exceed %d (%.0f%% of %d)", visibleSize, limit, share*100, p.Window)
			} else {
				d.State = Resident
				d.Reason += fmt.Sprintf("; auto: kept resident, visible definitions %d tokens fit in %d (%.0f%% of %d)", visibleSize, limit, share*100, p.Window)
			}
		}
	}
	plan.finish()
	return plan, nil
}

// denies hides t when the permission rules deny every call of it.
func (p *Policy) denies(t *registry.Tool, d *Decision) bool {
	if p.Denied == nil {
		return false
	}
	rule, ok := p.Denied(t)
	if ok {
		d.State, d.Reason = Hidden, "hidden: every call is denied by "+rule
	}
	return ok
}

func (p *Policy) size(t *registry.Tool) int {
	if p.Size != nil {
		return p.Size(t)
	}
	return estimateSize(t)
}

func modeName(m Mode) string {
	if m.Name == "" {
		return "custom"
	}
	return m.Name
}

// decide applies override layers (layers holds p.Layers' rules, parsed),
// the tool's flag, its group and the global default, in that order. It reports whether the decision is "soft": one
// that auto mode may still turn around (a flag, group or default that says
// the tool may be deferred).
func (p *Policy) decide(layers [][]rule, t *registry.Tool, g *registry.Group, d *Decision) (soft bool) {
	// Layers: NoDefer anywhere wins; among several, the highest layer is
	// reported. Without NoDefer, the highest matching Defer decides.
	var deferRule, noDeferRule *rule
	var deferLayer, noDeferLayer string
	for li, rules := range layers {
		for i := range rules {
			r := &rules[i]
			if !r.matches(t.Name) {
				continue
			}
			if r.verb == verbNoDefer {
				noDeferRule, noDeferLayer = r, p.Layers[li].Name
			} else {
				deferRule, deferLayer = r, p.Layers[li].Name
			}
		}
	}
	switch {
	case noDeferRule != nil:
		d.State, d.Layer, d.Rule = Resident, noDeferLayer, noDeferRule.String()
		d.Reason = fmt.Sprintf("rule %s in layer %q (no-defer wins)", noDeferRule, noDeferLayer)
		return false
	case deferRule != nil:
		d.State, d.Layer, d.Rule = Deferred, deferLayer, deferRule.String()
		d.Reason = fmt.Sprintf("rule %s in layer %q", deferRule, deferLayer)
		return false
	}
	switch t.DeferLoading {
	case registry.DeferFalse:
		d.State, d.Reason = Resident, "tool's defer_loading is false (pinned)"
		return false
	case registry.DeferTrue:
		d.State, d.Reason = Deferred, "tool's defer_loading is true"
		return true
	}
	if g != nil {
		if g.AlwaysLoad {
			d.State, d.Reason = Resident, fmt.Sprintf("group %q is always loaded", g.Name)
			return false
		}
		if c, ok := g.Configs[t.OriginalName]; ok && c != registry.DeferUnset {
			return groupSetting(d, c, fmt.Sprintf("group %q config for %q", g.Name, t.OriginalName))
		}
		if g.DefaultDefer != registry.DeferUnset {
			return groupSetting(d, g.DefaultDefer, fmt.Sprintf("group %q default", g.Name))
		}
	}
	switch p.Default {
	case DefaultDefer:
		d.State, d.Reason = Deferred, "global default: defer"
	case DefaultAuto:
		d.State, d.Reason = Deferred, "global default: auto"
		return true
	default:
		d.State, d.Reason = Resident, "global default: resident"
	}
	return false
}

func groupSetting(d *Decision, v registry.DeferLoading, what string) bool {
	if v == registry.DeferTrue {
		d.State, d.Reason = Deferred, what+": defer_loading true"
		return true
	}
	d.State, d.Reason = Resident, what+": defer_loading false"
	return false
}

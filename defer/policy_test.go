package deferral

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// The precedence matrix: every combination of layer rule, tool flag, group
// setting and global default, with the expected state written out per level
// (the precedence chain of the package doc, highest first).
func TestPrecedenceMatrix(t *testing.T) {
	type layerRule int
	const (
		noRule layerRule = iota
		deferRule
		noDeferRule
		bothRules // Defer in a higher layer, NoDefer in a lower one: no-defer still wins
	)
	type groupSetting int
	const (
		groupUnset groupSetting = iota
		groupDefer
		groupNoDefer
		groupConfigDefer   // per-tool config overrides the group default (set to no-defer here)
		groupConfigNoDefer // per-tool config no-defer, group default defer
		groupAlwaysLoad
	)
	flags := []registry.DeferLoading{registry.DeferUnset, registry.DeferTrue, registry.DeferFalse}
	defaults := []Default{DefaultResident, DefaultDefer}

	// expected states the precedence chain level by level.
	expected := func(lr layerRule, flag registry.DeferLoading, gs groupSetting, def Default) (State, string) {
		switch lr {
		case noDeferRule, bothRules:
			return Resident, "rule NoDefer"
		case deferRule:
			return Deferred, "rule Defer"
		}
		switch flag {
		case registry.DeferTrue:
			return Deferred, "defer_loading is true"
		case registry.DeferFalse:
			return Resident, "defer_loading is false"
		}
		switch gs {
		case groupAlwaysLoad:
			return Resident, "always loaded"
		case groupConfigDefer:
			return Deferred, "config for"
		case groupConfigNoDefer:
			return Resident, "config for"
		case groupDefer:
			return Deferred, "default: defer_loading true"
		case groupNoDefer:
			return Resident, "default: defer_loading false"
		}
		if def == DefaultDefer {
			return Deferred, "global default: defer"
		}
		return Resident, "global default: resident"
	}

	n := 0
	for _, lr := range []layerRule{noRule, deferRule, noDeferRule, bothRules} {
		for _, flag := range flags {
			for _, gs := range []groupSetting{groupUnset, groupDefer, groupNoDefer, groupConfigDefer, groupConfigNoDefer, groupAlwaysLoad} {
				for _, def := range defaults {
					name := fmt.Sprintf("rule%d/flag-%s/group%d/default-%s", lr, flag, gs, def)
					t.Run(name, func(t *testing.T) {
						g := registry.Group{Name: "srv"}
						switch gs {
						case groupDefer:
							g.DefaultDefer = registry.DeferTrue
						case groupNoDefer:
							g.DefaultDefer = registry.DeferFalse
						case groupConfigDefer:
							g.DefaultDefer = registry.DeferFalse
							g.Configs = map[string]registry.DeferLoading{"tool": registry.DeferTrue}
						case groupConfigNoDefer:
							g.DefaultDefer = registry.DeferTrue
							g.Configs = map[string]registry.DeferLoading{"tool": registry.DeferFalse}
						case groupAlwaysLoad:
							g.AlwaysLoad = true
							g.DefaultDefer = registry.DeferTrue
						}
						r := registry.New(nil)
						require.NoError(t, r.AddGroup(g))
						require.NoError(t, r.Register(registry.Tool{Name: "tool", Group: "srv", DeferLoading: flag}))
						p := &Policy{Default: def}
						switch lr {
						case deferRule:
							p.Layers = []Layer{MustLayer("project", "Defer(mcp__srv__*)")}
						case noDeferRule:
							p.Layers = []Layer{MustLayer("user", "NoDefer(mcp__srv__tool)")}
						case bothRules:
							p.Layers = []Layer{MustLayer("user", "NoDefer(*tool)"), MustLayer("session", "Defer(mcp__srv__tool)")}
						}
						plan, err := p.Plan(r.Snapshot(), View{})
						require.NoError(t, err)
						d, ok := plan.Explain("mcp__srv__tool")
						require.True(t, ok)
						wantState, wantReason := expected(lr, flag, gs, def)
						assert.Equal(t, wantState, d.State, d.Reason)
						assert.Contains(t, d.Reason, wantReason)
						assert.Equal(t, wantState == Deferred, plan.entryTools())
					})
					n++
				}
			}
		}
	}
	assert.Equal(t, 4*3*6*2, n)
}

func TestSelfBuiltAlwaysDeferred(t *testing.T) {
	r := registry.New(nil)
	sb, err := r.CheckSelfBuilt(registry.Tool{Name: "mine"})
	require.NoError(t, err)
	require.NoError(t, r.Register(sb))
	p := &Policy{Layers: []Layer{MustLayer("session", "NoDefer(*)")}}
	plan, err := p.Plan(r.Snapshot(), View{})
	require.NoError(t, err)
	d, _ := plan.Explain("mine")
	assert.Equal(t, Deferred, d.State, "no rule can pin a self-built tool")
	assert.Contains(t, d.Reason, "self-built")
}

func TestLayersReportWinningRule(t *testing.T) {
	r := registry.New(nil)
	require.NoError(t, r.Register(registry.Tool{Name: "Read"}, registry.Tool{Name: "Bash"}))
	p := &Policy{Layers: []Layer{
		MustLayer("defaults", "Defer(*)"),
		MustLayer("user", "NoDefer(Read)"),
		MustLayer("project", "Defer(Read)", "Defer(Bash)"),
	}}
	plan, err := p.Plan(r.Snapshot(), View{})
	require.NoError(t, err)
	d, _ := plan.Explain("Read")
	assert.Equal(t, Resident, d.State)
	assert.Equal(t, "user", d.Layer)
	assert.Equal(t, "NoDefer(Read)", d.Rule)
	d, _ = plan.Explain("Bash")
	assert.Equal(t, Deferred, d.State)
	assert.Equal(t, "project", d.Layer, "the highest matching layer is reported")
}

func TestEntryToolsAutoPinned(t *testing.T) {
	r := registry.New(nil)
	require.NoError(t, r.Register(registry.Tool{Name: "A"}, registry.Tool{Name: "B", DeferLoading: registry.DeferTrue}))
	plan, err := (&Policy{}).Plan(r.Snapshot(), View{})
	require.NoError(t, err)
	require.True(t, plan.entryTools())
	for _, n := range []string{registry.ToolSearchName, registry.DeferExecuteName} {
		d, ok := plan.Explain(n)
		require.True(t, ok)
		assert.Equal(t, Resident, d.State)
		assert.Contains(t, d.Reason, "auto-pinned: 1 tools are deferred")
	}
	decisions := plan.allDecisions()
	assert.Equal(t, []string{"A", "B", "tool_search", "defer_execute"}, namesOf(decisions))

	// Nothing deferred: neither entry tool appears.
	plan, err = (&Policy{Layers: []Layer{MustLayer("s", "NoDefer(*)")}}).Plan(r.Snapshot(), View{})
	require.NoError(t, err)
	assert.False(t, plan.entryTools())
	_, ok := plan.Explain(registry.ToolSearchName)
	assert.False(t, ok)
	assert.Equal(t, Hidden, plan.State(registry.DeferExecuteName))
}

func namesOf(ds []Decision) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

func harness(t *testing.T) *registry.Registry {
	t.Helper()
	r := registry.New(nil)
	tru := true
	// The harness marks its own readers read-only; the ask mode is
	// decided by that annotation, not by their names.
	for _, n := range []string{"Read", "Glob", "Grep", "WebFetch", "WebSearch"} {
		require.NoError(t, r.Register(registry.Tool{Name: n, Annotations: &registry.Annotations{ReadOnlyHint: &tru}}))
	}
	for _, n := range []string{"Write", "Edit", "Bash", "PowerShell", "TodoWrite"} {
		require.NoError(t, r.Register(registry.Tool{Name: n}))
	}
	require.NoError(t, r.Register(registry.Tool{Name: "Lookup", Annotations: &registry.Annotations{ReadOnlyHint: &tru}}))
	require.NoError(t, r.Register(registry.Tool{Name: "VideoGen", DeferLoading: registry.DeferTrue}))
	return r
}

// TestAskModeIsNotShared: a caller that edits its ask mode (here, to
// expose Write) changes no other caller's, which a package variable with a
// shared Allow slice did.
func TestAskModeIsNotShared(t *testing.T) {
	mine := askMode()
	mine.Allow = append(mine.Allow, "Bash")
	mine.ReadOnly = false
	assert.Equal(t, Mode{Name: "ask", ReadOnly: true}, askMode())
}

func TestAskMode(t *testing.T) {
	r := harness(t)
	plan, err := (&Policy{Default: DefaultDefer}).Plan(r.Snapshot(), View{Mode: askMode()})
	require.NoError(t, err)
	var visible []string
	for _, tl := range append(plan.Resident(), plan.Deferred()...) {
		visible = append(visible, tl.Name)
	}
	assert.ElementsMatch(t, []string{"Read", "Glob", "Grep", "WebFetch", "WebSearch", "Lookup"}, visible)
	for _, w := range []string{"Write", "Edit", "Bash", "PowerShell", "VideoGen"} {
		assert.Equal(t, Hidden, plan.State(w), w)
		_, ok := plan.visible(w)
		assert.False(t, ok, w)
		d, _ := plan.Explain(w)
		assert.Contains(t, d.Reason, `outside mode "ask"`)
	}
	// Modes by annotation: read-only tools only.
	plan, err = (&Policy{}).Plan(r.Snapshot(), View{Mode: Mode{Name: "ro", ReadOnly: true}})
	require.NoError(t, err)
	var names []string
	for _, tl := range plan.Resident() {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"Glob", "Grep", "Lookup", "Read", "WebFetch", "WebSearch"}, names)
	assert.False(t, plan.entryTools(), "nothing visible is deferred")
}

func TestTiersAndElevation(t *testing.T) {
	r := registry.New(nil)
	require.NoError(t, r.AddGroup(registry.Group{Name: "k8s", Tier: registry.TierFull}))
	require.NoError(t, r.Register(
		registry.Tool{Name: "Read"},
		registry.Tool{Name: "Migrate", Tier: registry.TierFull},
		registry.Tool{Name: "pods_list", Group: "k8s", Tier: registry.TierCore},
		registry.Tool{Name: "helm_install", Group: "k8s"},
	))
	p := &Policy{}
	core := View{}
	plan, err := p.Plan(r.Snapshot(), core)
	require.NoError(t, err)
	assert.Equal(t, Hidden, plan.State("Migrate"))
	assert.Equal(t, Hidden, plan.State("mcp__k8s__helm_install"), "group tier applies")
	assert.Equal(t, Resident, plan.State("mcp__k8s__pods_list"), "tool tier overrides group tier")
	d, _ := plan.Explain("Migrate")
	assert.Contains(t, d.Reason, "elevate")

	elevated := core.elevate()
	plan, err = p.Plan(r.Snapshot(), elevated)
	require.NoError(t, err)
	assert.Equal(t, Resident, plan.State("Migrate"))
	assert.Equal(t, Resident, plan.State("mcp__k8s__helm_install"))

	// Losing elevation falls back to the session's own tier, never to something new.
	lost := elevated
	lost.Elevated = false
	m, tier := lost.effective()
	assert.Equal(t, registry.TierCore, tier)
	assert.Equal(t, Mode{}, m)
	_, tier = View{Tier: registry.TierFull}.effective()
	assert.Equal(t, registry.TierFull, tier)
}

func TestAutoDefault(t *testing.T) {
	r := registry.New(nil)
	big := strings.Repeat("word ", 2000) // 10,000 chars → 2,500 tokens estimated
	require.NoError(t, r.Register(
		registry.Tool{Name: "Big", Description: big},
		registry.Tool{Name: "Pinned", Description: big, DeferLoading: registry.DeferFalse},
		registry.Tool{Name: "Flagged", DeferLoading: registry.DeferTrue},
	))
	// 10% of 200,000 = 20,000 tokens: everything fits, nothing deferred.
	plan, err := (&Policy{Default: DefaultAuto, Window: 200000}).Plan(r.Snapshot(), View{})
	require.NoError(t, err)
	assert.Empty(t, plan.Deferred())
	d, _ := plan.Explain("Flagged")
	assert.Contains(t, d.Reason, "auto: kept resident")
	// 10% of 20,000 = 2,000 tokens: over, the deferrable ones are deferred.
	plan, err = (&Policy{Default: DefaultAuto, Window: 20000}).Plan(r.Snapshot(), View{})
	require.NoError(t, err)
	assert.Equal(t, Deferred, plan.State("Big"))
	assert.Equal(t, Deferred, plan.State("Flagged"))
	assert.Equal(t, Resident, plan.State("Pinned"), "a pinned tool stays")
	d, _ = plan.Explain("Big")
	assert.Contains(t, d.Reason, "exceed 2000 (10% of 20000)")
	// A custom size function and share.
	plan, err = (&Policy{Default: DefaultAuto, Window: 1000, AutoShare: 0.5, Size: func(*registry.Tool) int { return 100 }}).Plan(r.Snapshot(), View{})
	require.NoError(t, err)
	assert.Empty(t, plan.Deferred(), "300 tokens fit in 500")

	_, err = (&Policy{Default: DefaultAuto}).Plan(r.Snapshot(), View{})
	assert.ErrorContains(t, err, "needs a context window")
	_, err = (&Policy{AutoShare: 2}).Plan(r.Snapshot(), View{})
	assert.ErrorContains(t, err, "outside [0, 1]")
}

func TestPlanRejectsHandBuiltBadRules(t *testing.T) {
	r := registry.New(nil)
	_, err := (&Policy{Layers: []Layer{{Name: "code", Rules: []string{"Defer()"}}}}).Plan(r.Snapshot(), View{})
	assert.ErrorIs(t, err, errRule)
	assert.ErrorContains(t, err, `layer "code"`)
	_, err = (&Policy{Layers: []Layer{{Name: "code", Rules: []string{"Pin(Read)"}}}}).Plan(r.Snapshot(), View{})
	assert.ErrorIs(t, err, errRule)
	assert.ErrorContains(t, err, `layer "code"`)
	// A hand-built layer decides as the parsed one does.
	plan, err := (&Policy{Layers: []Layer{{Name: "code", Rules: []string{" Defer( Read ) "}}}}).Plan(harness(t).Snapshot(), View{})
	require.NoError(t, err)
	d, _ := plan.Explain("Read")
	assert.Equal(t, Decision{Name: "Read", State: Deferred, Reason: `rule Defer(Read) in layer "code"`, Layer: "code", Rule: "Defer(Read)"}, d)
}

func TestExplainUnknown(t *testing.T) {
	plan, err := (&Policy{}).Plan(registry.New(nil).Snapshot(), View{})
	require.NoError(t, err)
	_, ok := plan.Explain("nope")
	assert.False(t, ok)
}

func ExamplePlan_Explain() {
	r := registry.New(nil)
	readOnly := true
	_ = r.Register(
		registry.Tool{Name: "Read", DeferLoading: registry.DeferFalse, Annotations: &registry.Annotations{ReadOnlyHint: &readOnly}},
		registry.Tool{Name: "VideoGen", DeferLoading: registry.DeferTrue},
		registry.Tool{Name: "Write"},
	)
	p := &Policy{Layers: []Layer{MustLayer("project", "NoDefer(VideoGen)")}}
	plan, _ := p.Plan(r.Snapshot(), View{Mode: Mode{Name: "ask", ReadOnly: true}})
	for _, name := range []string{"Read", "VideoGen", "Write"} {
		d, _ := plan.Explain(name)
		fmt.Println(d)
	}
	// Output:
	// Read: resident (tool's defer_loading is false (pinned))
	// VideoGen: hidden (hidden: outside mode "ask")
	// Write: hidden (hidden: outside mode "ask")
}

package deferral

import (
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// State is what a plan decided for a tool.
type State uint8

// The three states.
const (
	// Resident tools have their full definition in tools[] every turn.
	Resident State = iota + 1
	// Deferred tools appear by name in the tool_search index; their schema
	// is loaded by tool_search and they are called through defer_execute.
	Deferred
	// Hidden tools are absent everywhere: tools[], the index, search
	// results; defer_execute answers as if they did not exist.
	Hidden
)

func (s State) String() string {
	switch s {
	case Resident:
		return "resident"
	case Deferred:
		return "deferred"
	case Hidden:
		return "hidden"
	}
	return "unknown"
}

// Decision is the plan's verdict on one tool and why.
type Decision struct {
	Name  string
	State State
	// Reason says which rule, flag, group setting or default decided, in
	// words a harness author can act on.
	Reason string
	// Layer and Rule name the override rule that decided, if one did.
	Layer, Rule string
	// AliasOf is, for an MCP tool whose name broke the providers' name
	// rule, the server's own name; Name is then its alias
	// (toolname.Alias of mcp__<server>__<tool>), which the model sees and calls.
	AliasOf string
}

func (d Decision) String() string {
	if d.AliasOf != "" {
		return fmt.Sprintf("%s (alias of the server's tool %q): %s (%s)", d.Name, d.AliasOf, d.State, d.Reason)
	}
	return fmt.Sprintf("%s: %s (%s)", d.Name, d.State, d.Reason)
}

// Plan is the result of [Policy.Plan]: a decision for every tool of a
// snapshot, in snapshot order, plus the entry tools when anything is
// deferred. A Plan is immutable.
type Plan struct {
	snap      *registry.Snapshot
	decisions []Decision
	index     map[string]int
	resident  []*registry.Tool
	deferred  []*registry.Tool
	// hiddenTools are the hidden registry tools, in snapshot order.
	hiddenTools []*registry.Tool
}

func (p *Plan) finish() {
	for _, t := range p.snap.Tools() {
		switch p.decisions[p.index[t.Name]].State {
		case Resident:
			p.resident = append(p.resident, t)
		case Deferred:
			p.deferred = append(p.deferred, t)
		default:
			p.hiddenTools = append(p.hiddenTools, t)
		}
	}
	if len(p.deferred) > 0 {
		reason := fmt.Sprintf("auto-pinned: %d tools are deferred", len(p.deferred))
		for _, n := range []string{registry.ToolSearchName, registry.DeferExecuteName} {
			p.index[n] = len(p.decisions)
			p.decisions = append(p.decisions, Decision{Name: n, State: Resident, Reason: reason})
		}
	}
}

// Snapshot returns the snapshot the plan was computed from: its groups and
// every tool, whatever its state.
func (p *Plan) Snapshot() *registry.Snapshot { return p.snap }

// entryTools reports whether tool_search and defer_execute are exposed:
// true exactly when at least one tool is deferred (len(Deferred()) > 0).
func (p *Plan) entryTools() bool { return len(p.deferred) > 0 }

// Resident returns the resident registry tools in snapshot order. The entry
// tools are not registry tools and are not included: they are resident
// exactly when [Plan.Deferred] is not empty.
func (p *Plan) Resident() []*registry.Tool { return p.resident }

// Deferred returns the deferred tools in snapshot order.
func (p *Plan) Deferred() []*registry.Tool { return p.deferred }

// hidden returns the hidden tools in snapshot order. A harness asks
// [Plan.State] or [Plan.Explain] about one.
func (p *Plan) hidden() []*registry.Tool { return p.hiddenTools }

// allDecisions returns every decision: the snapshot's tools in order, then
// the entry tools when present.
func (p *Plan) allDecisions() []Decision { return append([]Decision(nil), p.decisions...) }

// State returns the state of name; unknown names are Hidden. The entry
// tools tool_search and defer_execute are Resident when anything is
// deferred.
func (p *Plan) State(name string) State {
	if i, ok := p.index[name]; ok {
		return p.decisions[i].State
	}
	return Hidden
}

// visible returns the tool if the plan shows it (resident or deferred).
// Hidden and unknown tools are indistinguishable here, by design. Other
// packages ask Snapshot().Tool(name) and State(name) != Hidden.
func (p *Plan) visible(name string) (*registry.Tool, bool) {
	i, ok := p.index[name]
	if !ok || p.decisions[i].State == Hidden {
		return nil, false
	}
	t, ok := p.snap.Tool(name)
	return t, ok
}

// Explain returns the decision for name and why, for harness authors
// debugging "why is my tool not visible?". It reports false for a name the
// snapshot does not hold.
func (p *Plan) Explain(name string) (Decision, bool) {
	i, ok := p.index[name]
	if !ok {
		// mcp__<server>__<tool> with the server's own tool name, for a
		// tool exposed under an alias.
		if server, tool, split := toolname.SplitMCP(name); split {
			i, ok = p.index[toolname.MCPName(server, tool)]
		}
	}
	if !ok {
		return Decision{}, false
	}
	return p.decisions[i], true
}

package deferral

import (
	"github.com/toolshelf/toolshelf/internal/pattern"
	"github.com/toolshelf/toolshelf/registry"
)

// Mode restricts what a session sees. The zero Mode allows every tool.
type Mode struct {
	// Name identifies the mode in explanations ("ask", "plan" ...).
	Name string
	// Allow lists name patterns (with * wildcards) of the tools the mode
	// exposes. When Allow is empty and ReadOnly is false, every tool is
	// exposed.
	Allow []string
	// ReadOnly also exposes every tool whose annotations declare it read-only.
	ReadOnly bool
}

// AskMode returns the mode of question answering in the default harness:
// exactly its read and search tools (Read, Glob, Grep, WebFetch, WebSearch),
// and no writer (Write, Edit, Bash, PowerShell ...). Each call returns a
// new Mode, so no caller can change another's; a harness whose read tools
// have other names builds its own Mode the same way.
func AskMode() Mode {
	return Mode{Name: "ask", Allow: []string{"Read", "Glob", "Grep", "WebFetch", "WebSearch"}}
}

// restricts reports whether the mode hides anything at all.
func (m Mode) restricts() bool { return len(m.Allow) > 0 || m.ReadOnly }

// Allows reports whether the mode exposes t.
func (m Mode) Allows(t *registry.Tool) bool {
	if !m.restricts() {
		return true
	}
	if m.ReadOnly && t.ReadOnly() {
		return true
	}
	for _, p := range m.Allow {
		if pattern.Match(p, t.Name) {
			return true
		}
	}
	return false
}

// View is what a session may see: its mode, its tier, and whether it was
// elevated. Sessions hold a View; [View.Effective] is the one place that
// turns it into the mode and tier in force.
type View struct {
	Mode Mode
	// Tier is the session's tier: core hides full-tier tools, full shows
	// them. Empty means core, the default.
	Tier registry.Tier
	// Elevated records an elevation request granted for this session: the
	// session sees the full tier until it ends. It is ephemeral; a session
	// that loses it falls back to its Tier, never to something new.
	Elevated bool
}

// Effective returns the mode and tier in force for the view.
func (v View) Effective() (Mode, registry.Tier) {
	tier := v.Tier
	if tier == "" {
		tier = registry.TierCore
	}
	if v.Elevated {
		tier = registry.TierFull
	}
	return v.Mode, tier
}

// Elevate returns the view with elevation granted.
func (v View) Elevate() View {
	v.Elevated = true
	return v
}

package deferral

import (
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/internal/pattern"
	"github.com/toolshelf/toolshelf/internal/registryx"
	"github.com/toolshelf/toolshelf/registry"
)

// Mode restricts what a session sees. The zero Mode allows every tool.
type Mode struct {
	// Name identifies the mode in explanations ("ask", "plan" ...).
	Name string
	// Allow lists the tools the mode exposes: name patterns (with *
	// wildcards), or "@" and an annotation name (@readonly, @destructive,
	// @idempotent, @openworld), which selects tools by their MCP
	// annotations as the registry reads them (see
	// [registry.Group.TrustAnnotations]). When Allow is
	// empty and ReadOnly is false, every tool is exposed.
	Allow []string
	// ReadOnly also exposes every read-only tool: the same as "@readonly"
	// in Allow. Only trusted annotations count (a built-in tool's, or an
	// MCP server's with [registry.Group.TrustAnnotations]): a server that
	// claims every tool is read-only adds none to a read-only mode.
	ReadOnly bool
}

// AskMode returns the mode of question answering: the read-only tools,
// decided by annotations — the harness marks its own readers
// (readOnlyHint, as Read, Glob, Grep, WebFetch and WebSearch are in
// testdata's harness catalog), trusted MCP servers mark theirs — and no
// writer (Write, Edit, Bash ...). Each call returns a new Mode, so no
// caller can change another's.
func AskMode() Mode {
	return Mode{Name: "ask", ReadOnly: true}
}

// restricts reports whether the mode hides anything at all.
func (m Mode) restricts() bool { return len(m.Allow) > 0 || m.ReadOnly }

// Allows reports whether the mode exposes t.
func (m Mode) Allows(t *registry.Tool) bool {
	if !m.restricts() {
		return true
	}
	if m.ReadOnly && registryx.HasHint(t, registryx.HintReadOnly) {
		return true
	}
	for _, p := range m.Allow {
		if h, ok := strings.CutPrefix(p, "@"); ok {
			if hint, err := registryx.ParseHint(h); err == nil && registryx.HasHint(t, hint) {
				return true
			}
			continue
		}
		if pattern.Match(p, t.Name) {
			return true
		}
	}
	return false
}

// check refuses an Allow entry that names an unknown annotation.
func (m Mode) check() error {
	for _, p := range m.Allow {
		if h, ok := strings.CutPrefix(p, "@"); ok {
			if _, err := registryx.ParseHint(h); err != nil {
				return fmt.Errorf("%w: mode %q: Allow %q: %w", ErrRule, modeName(m), p, err)
			}
		}
	}
	return nil
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

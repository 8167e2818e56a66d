package deferral

import (
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/visibility"
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
	// claims every tool is read-only adds none to a read-only mode. The
	// ask mode of question answering is Mode{Name: "ask", ReadOnly: true}.
	ReadOnly bool
}

// askMode is the mode of question answering: the read-only tools, decided
// by annotations — the harness marks its own readers (readOnlyHint, as
// Read, Glob, Grep, WebFetch and WebSearch are in testdata's harness
// catalog), trusted MCP servers mark theirs — and no writer (Write, Edit,
// Bash ...). A harness writes it as Mode{Name: "ask", ReadOnly: true}.
func askMode() Mode {
	return Mode{Name: "ask", ReadOnly: true}
}

// allows reports whether the mode exposes t.
func (m Mode) allows(t *registry.Tool) bool {
	return visibility.Allows(m.Allow, m.ReadOnly, t)
}

// check refuses an Allow entry that names an unknown annotation.
func (m Mode) check() error {
	for _, p := range m.Allow {
		if h, ok := strings.CutPrefix(p, "@"); ok {
			if _, err := registryx.ParseHint(h); err != nil {
				return fmt.Errorf("%w: mode %q: Allow %q: %w", errRule, modeName(m), p, err)
			}
		}
	}
	return nil
}

// View is what a session may see: its mode, its tier, and whether it was
// elevated. A session holds one (request.Config.View, Session.SetView).
type View struct {
	// Mode hides the tools outside it; the zero Mode hides none.
	Mode Mode
	// Tier is the session's tier: core hides full-tier tools, full shows
	// them. Empty means core, the default.
	Tier registry.Tier
	// Elevated records an elevation request granted for this session: the
	// session sees the full tier until it ends. It is ephemeral; a session
	// that loses it falls back to its Tier, never to something new.
	Elevated bool
}

// effective returns the mode and tier in force for the view.
func (v View) effective() (Mode, registry.Tier) {
	return v.Mode, visibility.Tier(v.Tier, v.Elevated)
}

// elevate returns the view with elevation granted.
func (v View) elevate() View {
	v.Elevated = true
	return v
}

// Package visibility holds the two view rules that package deferral's
// Policy.Plan applies and package request applies again to tools that reach
// a session after its plan (Session.Sync, self-built tools): whether a
// mode's allowlist exposes a tool, and which tier a view is in force at.
// They take the fields of deferral.Mode and deferral.View, so that deferral
// itself can call them; a harness sets those fields and never calls these.
package visibility

import (
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// Allows reports whether a mode with the allowlist allow and the read-only
// flag readOnly (deferral.Mode's Allow and ReadOnly) exposes t. An entry of
// allow is a name pattern or "@" and an annotation name, which selects tools
// by their trusted MCP annotations ([HasHint]); readOnly adds
// the read-only tools. A mode with neither exposes every tool.
func Allows(allow []string, readOnly bool, t *registry.Tool) bool {
	if len(allow) == 0 && !readOnly {
		return true
	}
	if readOnly && HasHint(t, registryx.HintReadOnly) {
		return true
	}
	for _, p := range allow {
		if h, ok := strings.CutPrefix(p, "@"); ok {
			if hint, err := registryx.ParseHint(h); err == nil && HasHint(t, hint) {
				return true
			}
			continue
		}
		if toolname.MatchPattern(p, t.Name) {
			return true
		}
	}
	return false
}

// Tier returns the tier in force for a view with the tier tier and the
// elevation elevated (deferral.View's Tier and Elevated): full when
// elevated, else tier, and core when tier is empty.
func Tier(tier registry.Tier, elevated bool) registry.Tier {
	if elevated {
		return registry.TierFull
	}
	if tier == "" {
		return registry.TierCore
	}
	return tier
}

// HasHint reports whether t carries hint h as a fact rules may rely on
// (defer's modes, execute's rules).
//
// A trusted tool ([registry.Tool.TrustedAnnotations]) is read as the MCP
// specification reads its annotations, defaults included: readOnlyHint
// false, destructiveHint true and idempotentHint false unless the tool is
// read-only (a read-only tool destroys nothing and is idempotent),
// openWorldHint true.
//
// An untrusted tool's hints are claims, not facts: it counts as the worst
// case whatever it says — not read-only, destructive, not idempotent,
// open-world. A server that claims every tool is read-only so gains
// nothing: its tools stay outside read-only modes and Allow(@readonly),
// and Ask(@destructive) or Deny(@openworld) still select them. Selection
// by annotation can only narrow what an untrusted source may do.
func HasHint(t *registry.Tool, h registryx.Hint) bool {
	if !t.TrustedAnnotations() {
		return h == registryx.HintDestructive || h == registryx.HintOpenWorld
	}
	a := t.Annotations
	ro := a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint
	switch h {
	case registryx.HintReadOnly:
		return ro
	case registryx.HintDestructive:
		return !ro && (a == nil || a.DestructiveHint == nil || *a.DestructiveHint)
	case registryx.HintIdempotent:
		return ro || a != nil && a.IdempotentHint != nil && *a.IdempotentHint
	case registryx.HintOpenWorld:
		return a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint
	}
	return false
}

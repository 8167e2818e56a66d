// Package visibility holds the two view rules that package deferral's
// Policy.Plan applies and package request applies again to tools that reach
// a session after its plan (Session.Sync, self-built tools): whether a
// mode's allowlist exposes a tool, and which tier a view is in force at.
// They take the fields of deferral.Mode and deferral.View, so that deferral
// itself can call them; a harness sets those fields and never calls these.
package visibility

import (
	"strings"

	"github.com/toolshelf/toolshelf/internal/pattern"
	"github.com/toolshelf/toolshelf/internal/registryx"
	"github.com/toolshelf/toolshelf/registry"
)

// Allows reports whether a mode with the allowlist allow and the read-only
// flag readOnly (deferral.Mode's Allow and ReadOnly) exposes t. An entry of
// allow is a name pattern or "@" and an annotation name, which selects tools
// by their trusted MCP annotations ([registryx.HasHint]); readOnly adds
// the read-only tools. A mode with neither exposes every tool.
func Allows(allow []string, readOnly bool, t *registry.Tool) bool {
	if len(allow) == 0 && !readOnly {
		return true
	}
	if readOnly && registryx.HasHint(t, registryx.HintReadOnly) {
		return true
	}
	for _, p := range allow {
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

package registry

import (
	"errors"
	"fmt"
)

// ErrHint reports an annotation name that [ParseHint] does not know.
var ErrHint = errors.New("registry: unknown annotation")

// Hint names one of the MCP tool annotations that permission rules
// (Ask(@destructive)), hook patterns and modes ([deferral.Mode] ReadOnly)
// select tools by.
type Hint uint8

// The four MCP annotation hints.
const (
	// HintReadOnly: the tool does not modify its environment (readOnlyHint).
	HintReadOnly Hint = iota + 1
	// HintDestructive: the tool may perform destructive updates
	// (destructiveHint; the MCP default for a tool that is not read-only).
	HintDestructive
	// HintIdempotent: calling the tool again with the same arguments has no
	// further effect (idempotentHint).
	HintIdempotent
	// HintOpenWorld: the tool reaches an open world of external entities,
	// such as the web (openWorldHint; the MCP default).
	HintOpenWorld
)

var hintNames = [...]string{HintReadOnly: "readonly", HintDestructive: "destructive", HintIdempotent: "idempotent", HintOpenWorld: "openworld"}

// String returns the hint's name as rules write it after "@": "readonly".
func (h Hint) String() string {
	if int(h) < len(hintNames) && hintNames[h] != "" {
		return hintNames[h]
	}
	return fmt.Sprintf("Hint(%d)", uint8(h))
}

// ParseHint parses a hint name: "readonly", "destructive", "idempotent" or
// "openworld" (exactly, lower case). Anything else is an error wrapping
// [ErrHint].
func ParseHint(name string) (Hint, error) {
	for h, n := range hintNames {
		if n != "" && n == name {
			return Hint(h), nil
		}
	}
	if len(name) > 40 {
		name = name[:40]
	}
	return 0, fmt.Errorf("%w %q: want readonly, destructive, idempotent or openworld", ErrHint, name)
}

// TrustedHints reports whether the tool's annotations are facts rules may
// rely on: the harness's own built-in tools, and the tools of an MCP server
// group registered with [Group.TrustAnnotations]. A self-built tool's
// annotations were written by the model and are never trusted.
func (t *Tool) TrustedHints() bool {
	return t.Source == SourceBuiltin || t.Source == SourceMCP && t.trustedHints
}

// HasHint reports whether t carries hint h as a fact rules may rely on.
//
// A trusted tool ([Tool.TrustedHints]) is read as the MCP specification
// reads its annotations, defaults included: readOnlyHint false,
// destructiveHint true and idempotentHint false unless the tool is
// read-only (a read-only tool destroys nothing and is idempotent),
// openWorldHint true.
//
// An untrusted tool's hints are claims, not facts: it counts as the worst
// case whatever it says — not read-only, destructive, not idempotent,
// open-world. A server that claims every tool is read-only so gains
// nothing: its tools stay outside read-only modes and Allow(@readonly),
// and Ask(@destructive) or Deny(@openworld) still select them. Selection
// by annotation can only narrow what an untrusted source may do.
func (t *Tool) HasHint(h Hint) bool {
	if !t.TrustedHints() {
		return h == HintDestructive || h == HintOpenWorld
	}
	a := t.Annotations
	if a == nil {
		a = &Annotations{}
	}
	ro := a.ReadOnly()
	switch h {
	case HintReadOnly:
		return ro
	case HintDestructive:
		return !ro && (a.DestructiveHint == nil || *a.DestructiveHint)
	case HintIdempotent:
		return ro || a.IdempotentHint != nil && *a.IdempotentHint
	case HintOpenWorld:
		return a.OpenWorldHint == nil || *a.OpenWorldHint
	}
	return false
}

// restampTrust gives g's tools its TrustAnnotations. Tools are shared with
// earlier snapshots, so a changed one is replaced by a copy. r.mu must be
// held.
func (r *Registry) restampTrust(g *Group) {
	want := g.Source == SourceMCP && g.TrustAnnotations
	for n, t := range r.tools {
		if t.Group == g.Name && t.trustedHints != want {
			nt := *t
			nt.trustedHints = want
			r.tools[n] = &nt
		}
	}
}

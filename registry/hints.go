package registry

import "github.com/toolshelf/toolshelf/internal/registryx"

func init() {
	registryx.SetHooks((*Registry).prepareSelfBuilt, (*Tool).hasHint, nameTaken, (*Snapshot).all)
}

// hintsTrusted reports whether the tool's annotations are facts rules may
// rely on: the harness's own built-in tools, and the tools of an MCP server
// group registered with [Group.TrustAnnotations]. A self-built tool's
// annotations were written by the model and are never trusted.
func (t *Tool) hintsTrusted() bool {
	return t.Source == SourceBuiltin || t.Source == SourceMCP && t.trustedHints
}

// hasHint reports whether t carries hint h as a fact rules may rely on
// (registryx.HasHint, for defer's modes and execute's rules).
//
// A trusted tool (hintsTrusted) is read as the MCP specification
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
func (t *Tool) hasHint(h registryx.Hint) bool {
	if !t.hintsTrusted() {
		return h == registryx.HintDestructive || h == registryx.HintOpenWorld
	}
	a := t.Annotations
	if a == nil {
		a = &Annotations{}
	}
	ro := a.readOnly()
	switch h {
	case registryx.HintReadOnly:
		return ro
	case registryx.HintDestructive:
		return !ro && (a.DestructiveHint == nil || *a.DestructiveHint)
	case registryx.HintIdempotent:
		return ro || a.IdempotentHint != nil && *a.IdempotentHint
	case registryx.HintOpenWorld:
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

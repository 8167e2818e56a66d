package registry

// TrustedAnnotations reports whether the tool's annotations are facts rules
// may rely on: the harness's own built-in tools, and the tools of an MCP
// server group registered with [Group.TrustAnnotations]. A self-built
// tool's annotations were written by the model and are never trusted.
// Permission rules (Ask(@destructive)) and modes (read-only) read an
// untrusted tool as the worst case whatever it claims; a harness making
// its own decisions from annotations should do the same.
func (t *Tool) TrustedAnnotations() bool {
	return t.Source == SourceBuiltin || t.Source == SourceMCP && t.trustedHints
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

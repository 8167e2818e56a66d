package request

import (
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// This file carries the dispatcher's permission rules into what the model
// sees: a tool whose every call the rules deny leaves tools[], the
// tool_search index and search results when the prefix freezes, like a
// hidden tool (docs/governance.md).

// governedPolicy returns cfg's policy with the dispatcher's denials: a
// copy, so the harness's policy is never written to.
func governedPolicy(cfg *Config) *deferral.Policy {
	var p deferral.Policy
	if cfg.Policy != nil {
		p = *cfg.Policy
	}
	if p.Denied == nil && cfg.Dispatcher != nil {
		p.Denied = cfg.Dispatcher.Denied
	}
	return &p
}

// deniedKey hashes the names of the snapshot's tools that the dispatcher
// denies outright: they shape the prefix, so sessions share one only when
// their denials agree.
func deniedKey(h hasher, cfg *Config) {
	p := governedPolicy(cfg)
	if p.Denied == nil {
		h.num(0)
		return
	}
	n := 0
	for _, t := range cfg.Snapshot.Tools() {
		if _, ok := p.Denied(t); ok {
			h.str(t.Name)
			n++
		}
	}
	h.num(uint64(n) + 1)
}

// deniedBy reports whether the session's rules deny every call of t.
func (s *Session) deniedBy(t *registry.Tool) (string, bool) {
	p := governedPolicy(&s.cfg)
	if p.Denied == nil {
		return "", false
	}
	return p.Denied(t)
}

// denied reports whether the session's rules deny every call of t.
func (s *Session) denied(t *registry.Tool) bool {
	_, ok := s.deniedBy(t)
	return ok
}

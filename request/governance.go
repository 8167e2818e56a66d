package request

import (
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// This file carries the dispatcher's permission rules into what the model
// sees: a tool whose every call the rules deny leaves tools[], the
// tool_search index and search results when the prefix freezes, like a
// hidden tool (docs/governance.md).

// denial is the one answer to "do the rules deny every call of this
// tool", resolved once per session (and once per freeze): the policy's
// own Denied when the harness set one, else the dispatcher's rules, else
// nil (nothing is denied). The seam runs one way: request reads the
// dispatcher's answer and never writes a function into a policy per
// decision (issue 42).
func denial(cfg *Config) func(*registry.Tool) (string, bool) {
	if cfg.Policy != nil && cfg.Policy.Denied != nil {
		return cfg.Policy.Denied
	}
	if cfg.Dispatcher != nil {
		return cfg.Dispatcher.Denied
	}
	return nil
}

// governedPolicy returns cfg's policy with the dispatcher's denials: a
// copy, made once per freeze, so the harness's policy is never written to.
func governedPolicy(cfg *Config) *deferral.Policy {
	var p deferral.Policy
	if cfg.Policy != nil {
		p = *cfg.Policy
	}
	p.Denied = denial(cfg)
	return &p
}

// deniedKey hashes the names of the snapshot's tools that the dispatcher
// denies outright: they shape the prefix, so sessions share one only when
// their denials agree.
func deniedKey(h hasher, cfg *Config) {
	deny := denial(cfg)
	if deny == nil {
		h.num(0)
		return
	}
	n := 0
	for _, t := range cfg.Snapshot.Tools() {
		if _, ok := deny(t); ok {
			h.str(t.Name)
			n++
		}
	}
	h.num(uint64(n) + 1)
}

// deniedBy reports whether the session's rules deny every call of t, and
// names the rule.
func (s *Session) deniedBy(t *registry.Tool) (string, bool) {
	if s.deny == nil {
		return "", false
	}
	return s.deny(t)
}

// denied reports whether the session's rules deny every call of t.
func (s *Session) denied(t *registry.Tool) bool {
	_, ok := s.deniedBy(t)
	return ok
}

package main

import (
	"testing"
)

// TestSessionsEnd: a downstream session that ends stops following the
// servers, so that a shared gateway does not keep every session it ever
// served.
func TestSessionsEnd(t *testing.T) {
	alpha, beta := twoServers()
	g := testGateway(t, baseRules, alpha.server("alpha"), beta.server("beta"))
	n := func() int {
		g.followMu.Lock()
		defer g.followMu.Unlock()
		return len(g.followers)
	}
	for range 3 {
		cs := client(t, g, "", nil)
		listNames(t, cs)
		cs.Close()
	}
	eventually(t, "the ended sessions to stop following", func() bool { return n() == 0 })
}

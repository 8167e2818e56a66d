package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAccountingAboveSession: request imported budget (request/sections.go),
// so accounting sat under the session it measures (issue 24). budget reads
// sessions from above: no package of the session's pipeline depends on it,
// directly or through another (go list -deps, as the issue checks it).
func TestAccountingAboveSession(t *testing.T) {
	const budgetPkg = "github.com/toolshelf/toolshelf/budget"
	out, err := exec.Command("go", "list", "-deps", "../../../request", "../../../search", "../../../execute", "../../../registry", "../../../render").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == budgetPkg {
			t.Fatalf("the session's pipeline depends on budget: accounting belongs above the session")
		}
	}
}

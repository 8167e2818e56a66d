package rulecheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPending: a rule that can select a pending server's tools is not
// "nothing"; the same rule without the pending server is.
func TestPending(t *testing.T) {
	names := []string{"Read", "mcp__filesystem__read_file"}
	rules := []Rule{
		{Text: "Deny(mcp__github__*)", Pattern: "mcp__github__*"},
		{Text: "Deny(mcp__github__create_issue)", Pattern: "mcp__github__create_issue"},
		{Text: "Deny(mcp__git*)", Pattern: "mcp__git*"},
		{Text: "Allow(@readonly)", Pattern: "@readonly"},
	}
	assert.Empty(t, Unmatched(rules, names, []string{"github"}))
	got := Unmatched(rules, names, nil)
	assert.Len(t, got, 3, "annotation patterns are never reported")
	assert.Len(t, Unmatched(rules, names, []string{"gitlab"}), 2, "mcp__git* may select gitlab's tools")
}

func TestClosest(t *testing.T) {
	names := []string{"Read", "Write", "mcp__filesystem__write_file", "mcp__filesystem__read_file", "mcp__github__get_me"}
	for p, want := range map[string][]string{
		"write_file":                  {"mcp__filesystem__write_file"},
		"mcp_filesystem_write_file":   {"mcp__filesystem__write_file"},
		"MCP__FILESYSTEM__WRITE_FILE": {"mcp__filesystem__write_file"},
		"Wrte":                        {"Write"},
		"mcp__githb__*":               {"mcp__github__*"},
		"zzzzzz":                      {},
	} {
		assert.Equal(t, want, Closest(p, names), p)
	}
}

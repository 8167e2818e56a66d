package deferral

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// match is the pattern matcher every rule uses, under test here.
var match = toolname.MatchPattern

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"Read", "Read", true},
		{"Read", "ReadFile", false}, // anchored at the end
		{"Read", "xRead", false},    // anchored at the start
		{"mcp__github__*", "mcp__github__create_issue", true},
		{"mcp__github__*", "mcp__gitlab__create_issue", false},
		{"*", "anything", true},
		{"*", "", true},
		{"*issue*", "mcp__github__issue_read", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false},
		{"**", "x", true},
		{"Web*", "WebFetch", true},
		{"Web*", "web_fetch", false}, // case-sensitive
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, match(tc.pattern, tc.name), "%q ~ %q", tc.pattern, tc.name)
	}
}

// TestMatchIsNotExponential feeds the classic backtracking killer; a naive
// recursive matcher takes exponential time on it. Correctness is what is
// asserted: the bound is structural (two indices, one saved star).
func TestMatchIsNotExponential(t *testing.T) {
	pattern := strings.Repeat("a*", 60) + "b"
	name := strings.Repeat("a", 64)
	assert.False(t, match(pattern, name))
}

func TestParseRule(t *testing.T) {
	r, err := parseRule("  NoDefer(mcp__github__*)  ")
	require.NoError(t, err)
	assert.Equal(t, rule{verb: verbNoDefer, pattern: "mcp__github__*"}, r)
	assert.Equal(t, "NoDefer(mcp__github__*)", r.String())
	r, err = parseRule("Defer( VideoGen )")
	require.NoError(t, err)
	assert.Equal(t, rule{verb: verbDefer, pattern: "VideoGen"}, r)

	bad := []struct{ rule, want string }{
		{"Defer()", "empty pattern"},
		{"Defer(  )", "empty pattern"},
		{"Allow(Read)", `unknown verb "Allow"`},
		{"defer(Read)", `unknown verb "defer"`},
		{"Defer Read", "want Defer(pattern) or NoDefer(pattern)"},
		{"Defer(Read", "want Defer(pattern) or NoDefer(pattern)"},
		{"Defer(Re.d)", `character '.' is not allowed`},
		{"Defer(a|b)", `character '|' is not allowed`},
		{"Defer(" + strings.Repeat("a", 300) + ")", "longer than 256"},
		{"", "want Defer(pattern)"},
	}
	for _, tc := range bad {
		_, err := parseRule(tc.rule)
		require.Error(t, err, tc.rule)
		assert.True(t, errors.Is(err, errRule))
		assert.Contains(t, err.Error(), tc.want, tc.rule)
	}
}

func TestParseLayerQuotesRuleAndLayer(t *testing.T) {
	l, err := ParseLayer("project", "# comment\n\nDefer(mcp__*)\nNoDefer(mcp__github__get_me)\n")
	require.NoError(t, err)
	assert.Equal(t, []string{"Defer(mcp__*)", "NoDefer(mcp__github__get_me)"}, l.Rules)

	_, err = ParseLayer("user", "Defer(Read)\nPin(Write)")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `layer "user", line 2`)
	assert.Contains(t, err.Error(), `"Pin(Write)"`)

	assert.Panics(t, func() { MustLayer("x", "Nope(a)") })
}

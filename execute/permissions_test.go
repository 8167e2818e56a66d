package execute

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParsePermissions: rules read at run time parse to what
// MustPermissions gives, and a bad one is an error naming it and its index
// instead of a panic.
func TestParsePermissions(t *testing.T) {
	rules := []string{"Deny(Bash)", "Ask(mcp__github__create_*)", "Allow(@readonly)"}
	got, err := ParsePermissions(rules...)
	require.NoError(t, err)
	assert.Equal(t, MustPermissions(rules...), got)
	assert.Equal(t, "Ask(mcp__github__create_*)", got[1].String())

	got, err = ParsePermissions("Deny(Bash)", "Forbid(Write)")
	require.Error(t, err)
	assert.Nil(t, got)
	assert.True(t, errors.Is(err, ErrPermission))
	assert.Contains(t, err.Error(), `"Forbid(Write)"`)
	assert.Contains(t, err.Error(), "(rules[1])")
	_, err = ParsePermissions("Allow(@readonnly)")
	assert.ErrorIs(t, err, ErrPermission)

	got, err = ParsePermissions()
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Panics(t, func() { MustPermissions("Deny(") })
}

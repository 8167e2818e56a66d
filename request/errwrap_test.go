package request

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWrapErrPrefixOnce(t *testing.T) {
	outer := errors.New("request: invalid session config")
	inner := errors.New("request: unknown provider")
	err := wrapErr(outer, inner, "%q: want %q", "x", "anthropic")
	assert.Equal(t, `request: invalid session config: unknown provider: "x": want "anthropic"`, err.Error())
	assert.ErrorIs(t, err, outer)
	assert.ErrorIs(t, err, inner)

	other := errors.New("registry: invalid name")
	err = wrapErr(outer, other, "")
	assert.Equal(t, "request: invalid session config: registry: invalid name", err.Error(), "another package's prefix stays: it says where the error came from")
	assert.ErrorIs(t, err, other)
}

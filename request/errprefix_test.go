package request_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// TestErrorPrefixedOnce: an unknown provider read "request: invalid session
// config: request: unknown provider" (issue 24). The message carries the
// package's prefix once, says how to fix the call, and still matches both
// sentinels.
func TestErrorPrefixedOnce(t *testing.T) {
	reg := registry.New(nil)
	for _, p := range []request.Provider{"", "vertex"} {
		_, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: p})
		require.Error(t, err)
		assert.ErrorIs(t, err, request.ErrConfig)
		assert.ErrorIs(t, err, request.ErrUnknownProvider)
		assert.Equal(t, 1, strings.Count(err.Error(), "request: "), err.Error())
		assert.Contains(t, err.Error(), `want "openai-chat"`, "the message says what to write")
		assert.Less(t, len(err.Error()), 160, err.Error())
	}
	_, err := request.RestoreSession(request.Config{Snapshot: reg.Snapshot(), Provider: request.Anthropic}, []byte(`{"v":1}`), nil)
	require.Error(t, err)
	assert.True(t, errors.Is(err, request.ErrState) || errors.Is(err, request.ErrConfig), err.Error())
	assert.Equal(t, 1, strings.Count(err.Error(), "request: "), err.Error())
}

package request

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/registry"
)

// TestTokenFields: each wrong output-token field — a string, zero, a
// negative or fractional value, another provider's name for it, below the
// Responses API's 16 — is refused by NewSession with the fix; the right
// ones pass.
func TestTokenFields(t *testing.T) {
	snap := registry.New(nil).Snapshot()
	for _, tc := range []struct {
		p          Provider
		field, val string
		want       string // "" means accepted
	}{
		{Anthropic, "max_tokens", `"1024"`, `Config.Extra["max_tokens"]: want a JSON integer, got the string "1024": write it without quotes (json.RawMessage("1024"))`},
		{Anthropic, "max_tokens", `0`, `Config.Extra["max_tokens"]: 0 is below the least value provider "anthropic" takes, 1`},
		{Anthropic, "max_tokens", `-5`, `want a positive JSON integer, got -5`},
		{Anthropic, "max_tokens", `10.5`, `want a positive JSON integer, got 10.5`},
		{Anthropic, "max_tokens", `4096`, ""},
		{OpenAIResponses, "max_tokens", `1024`, `Config.Extra["max_tokens"]: provider "openai-responses" does not take max_tokens: name the field max_output_tokens`},
		{OpenAIResponses, "max_completion_tokens", `1024`, `name the field max_output_tokens`},
		{OpenAIResponses, "max_output_tokens", `10`, `10 is below the least value provider "openai-responses" takes, 16`},
		{OpenAIResponses, "max_output_tokens", `1024`, ""},
		{OpenAIChat, "max_output_tokens", `1024`, `provider "openai-chat" does not take max_output_tokens: name the field max_completion_tokens`},
		{OpenAIChat, "max_completion_tokens", `"2048"`, `want a JSON integer, got the string "2048"`},
		{OpenAIChat, "max_completion_tokens", `2048`, ""},
		{OpenAIChat, "max_tokens", `2048`, ""},
	} {
		extra := map[string]json.RawMessage{tc.field: json.RawMessage(tc.val)}
		if tc.p == Anthropic && tc.field != "max_tokens" {
			extra["max_tokens"] = json.RawMessage(`256`)
		}
		_, err := NewSession(Config{Snapshot: snap, Provider: tc.p, Model: testModel(tc.p), Extra: extra})
		if tc.want == "" {
			assert.NoError(t, err, "%s %s=%s", tc.p, tc.field, tc.val)
			continue
		}
		require.ErrorIs(t, err, ErrConfig, "%s %s=%s", tc.p, tc.field, tc.val)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := NewSession(Config{Snapshot: snap, Provider: Anthropic, Model: "claude-sonnet-4-5", Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`256`), "max_output_tokens": json.RawMessage(`256`)}})
	assert.ErrorContains(t, err, `provider "anthropic" does not take max_output_tokens: name the field max_tokens`)
}

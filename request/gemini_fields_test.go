package request

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// TestGeminiTopLevelFields: a Gemini session refuses a Config.Extra field
// the generateContent request does not take at its top level, naming
// generationConfig.<field> for a generation setting (the API answers
// "Unknown name" on every request), and takes the request's own fields.
func TestGeminiTopLevelFields(t *testing.T) {
	open := func(key, value string) error {
		cfg := testConfig(registry.New(nil).Snapshot(), Gemini, nil, nil)
		cfg.Extra = map[string]json.RawMessage{key: json.RawMessage(value)}
		_, err := NewSession(cfg)
		return err
	}
	for key, want := range map[string]string{
		"maxOutputTokens":    "generationConfig.maxOutputTokens",
		"temperature":        "generationConfig.temperature",
		"topP":               "generationConfig.topP",
		"top_k":              "generationConfig.topK",
		"stopSequences":      "generationConfig.stopSequences",
		"stop":               "generationConfig.stopSequences",
		"candidateCount":     "generationConfig.candidateCount",
		"thinkingConfig":     "generationConfig.thinkingConfig",
		"responseMimeType":   "generationConfig.responseMimeType",
		"seed":               "generationConfig.seed",
		"max_tokens":         "generationConfig.maxOutputTokens",
		"presence_penalty":   "generationConfig.presencePenalty",
		"frequencyPenalty":   "generationConfig.frequencyPenalty",
		"responseJsonSchema": "generationConfig.responseJsonSchema",
		"stream":             `no field "stream"`,
		"tool_choice":        `no field "tool_choice"`,
	} {
		err := open(key, `1`)
		require.Error(t, err, key)
		assert.True(t, errors.Is(err, ErrConfig), "%s: %v", key, err)
		assert.Contains(t, err.Error(), `Config.Extra["`+key+`"]`)
		assert.Contains(t, err.Error(), want)
	}
	for _, key := range []string{"generationConfig", "generation_config", "safetySettings", "safety_settings", "toolConfig", "cachedContent", "labels", "serviceTier", "store"} {
		value := `{}`
		if key == "store" {
			value = `false`
		}
		assert.NoError(t, open(key, value), key)
	}
}

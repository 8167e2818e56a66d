package openai

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNativeToolSearchModel(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-5.4": true, "gpt-5.4-mini": true, "gpt-5.5": true, "gpt-5.10": true, "gpt-6": true, "gpt-6-pro": true,
		"gpt-5": false, "gpt-5.3-codex": false, "gpt-4o": false, "gpt-4.1": false, "o3": false, "": false, "gpt-": false, "gpt-x": false,
	} {
		assert.Equal(t, want, NativeToolSearchModel(model), model)
	}
}

func TestStrictCompatible(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`:                                        true,
		`{"type":"object","properties":{},"required":[],"additionalProperties":false}`:                                                                true,
		`{"type":"object","additionalProperties":false}`:                                                                                              true,
		`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`:                                                         false, // a optional
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`:                                                                     false, // open
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}}}},"required":["a"],"additionalProperties":false}`:  false, // nested open
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","minLength":1}}},"required":["a"],"additionalProperties":false}`: false, // minLength
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`:            true,
		`{"anyOf":[{"type":"object"}]}`: false,
		`{"type":"string"}`:             false,
		`not json`:                      false,
	} {
		assert.Equal(t, want, StrictCompatible([]byte(schema)), schema)
	}
	deep := `{"type":"string"}`
	for range 12 {
		deep = `{"type":"object","properties":{"x":` + deep + `},"required":["x"],"additionalProperties":false}`
	}
	assert.False(t, StrictCompatible([]byte(deep)), "over 10 levels")
}

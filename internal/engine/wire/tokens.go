package wire

import (
	"encoding/json"
	"strconv"
	"strings"
)

// tokenFields names each provider's field for the output-token limit, the
// least value it takes, and the other providers' names for it, which it
// refuses ("Unsupported parameter: 'max_tokens'"). Chat Completions also
// takes max_tokens, deprecated for max_completion_tokens (and refused by
// its reasoning models).
var tokenFields = map[string]struct {
	fields []string
	min    uint64
	wrong  []string
}{
	Anthropic:       {[]string{"max_tokens"}, 1, []string{"max_output_tokens", "max_completion_tokens"}},
	OpenAIChat:      {[]string{"max_completion_tokens", "max_tokens"}, 1, []string{"max_output_tokens"}},
	OpenAIResponses: {[]string{"max_output_tokens"}, 16, []string{"max_tokens", "max_completion_tokens"}},
	// Gemini has no top-level token field: the limit is
	// generationConfig.maxOutputTokens, and an unknown top-level name is
	// refused ("Invalid JSON payload received. Unknown name").
	Gemini: {nil, 1, []string{"max_tokens", "max_output_tokens", "max_completion_tokens"}},
}

// TokenFields checks the output-token fields among a request's top-level
// fields for provider p: the provider's own name for the field, a JSON
// integer, at least the provider's minimum. Each violation says the fix.
// Providers it does not know have no violations.
func TokenFields(p string, fields map[string]json.RawMessage) []Violation {
	tf, ok := tokenFields[p]
	if !ok {
		return nil
	}
	c := checker{provider: p}
	want := "generationConfig.maxOutputTokens"
	if len(tf.fields) > 0 {
		want = tf.fields[0]
	}
	for _, w := range tf.wrong {
		if _, ok := fields[w]; ok {
			c.add("token-field", w, "provider %q does not take %s: name the field %s", p, w, want)
		}
	}
	for _, f := range tf.fields {
		raw, ok := fields[f]
		if !ok {
			continue
		}
		v := strings.TrimSpace(string(raw))
		n, err := strconv.ParseUint(v, 10, 64)
		switch {
		case strings.HasPrefix(v, `"`):
			c.add("token-field", f, "want a JSON integer, got the string %s: write it without quotes (json.RawMessage(%q))", clipValue(v), strings.Trim(v, `"`))
		case err != nil:
			c.add("token-field", f, "want a positive JSON integer, got %s", clipValue(v))
		case n < tf.min:
			c.add("token-field", f, "%d is below the least value provider %q takes, %d: give the most tokens the reply may use (4096, say)", n, p, tf.min)
		}
	}
	return c.out
}

func clipValue(v string) string {
	if len(v) > 40 {
		return v[:40] + "..."
	}
	return v
}

// tokenRules are the rule book's entries for the output-token fields.
var tokenRules = []Rule{
	{"token-field", OpenAIChat, "max_completion_tokens (max_tokens deprecated)", "an integer ≥ 1; not max_output_tokens",
		"max_completion_tokens: integer or null — An upper bound for the number of tokens that can be generated for a completion. max_tokens: Deprecated in favor of max_completion_tokens.",
		"https://platform.openai.com/docs/api-reference/chat/create",
		"NewSession refuses Config.Extra with max_output_tokens, a string, zero or a negative value in these fields (ErrConfig, with the fix); the checker reports the same in any body."},
	{"token-field", OpenAIResponses, "max_output_tokens", "an integer ≥ 16; not max_tokens or max_completion_tokens",
		"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 10 instead. (integer_below_min_value)",
		"https://github.com/vectorize-io/hindsight/issues/58",
		"NewSession refuses max_tokens or max_completion_tokens on a Responses session, and a max_output_tokens that is a string or below 16 (ErrConfig, with the fix)."},
	{"token-field", Anthropic, "max_tokens", "an integer ≥ 1; not max_output_tokens or max_completion_tokens",
		"max_tokens: Required[int] — The maximum number of tokens to generate before stopping. … Different models have different maximum values for this parameter.",
		"https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/types/message_create_params.py",
		"NewSession refuses a max_tokens that is a string, zero or negative, and the OpenAI names for it (ErrConfig, with the fix)."},
	{"token-field", Gemini, "generationConfig.maxOutputTokens", "no top-level max_tokens, max_output_tokens or max_completion_tokens",
		"GenerationConfig.maxOutputTokens: integer — Optional. The maximum number of tokens to include in a response candidate. (An unknown top-level name: Invalid JSON payload received. Unknown name \"max_tokens\": Cannot find field.)",
		"https://ai.google.dev/api/generate-content#generationconfig",
		"NewSession refuses the other providers' top-level token fields on a Gemini session, naming generationConfig.maxOutputTokens (ErrConfig, with the fix)."},
}

func init() { rules = append(rules, tokenRules...) }

// checkTokens adds the token-field violations of a body's top level.
func (c *checker) checkTokens(req map[string]json.RawMessage) {
	c.out = append(c.out, TokenFields(c.provider, req)...)
}

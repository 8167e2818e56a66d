package wire

import (
	"encoding/json"
	"slices"
	"strings"
)

// geminiTopLevel are the members of a Gemini generateContent request body:
// those google.golang.org/genai v1.77.0 writes there for the Gemini API and
// Vertex AI (generateContentParametersToMldev/ToVertex and the request-level
// fields of generateContentConfigToMldev/ToVertex), in lowerCamelCase and in
// the snake_case proto names the API also reads.
var geminiTopLevel = []string{
	"cachedContent", "contents", "continuationToken", "generationConfig", "labels",
	"model", "modelArmorConfig", "outputConfig", "safetySettings", "serviceTier",
	"store", "systemInstruction", "toolConfig", "tools",
}

// geminiGeneration are the members of GenerationConfig genai v1.77.0 writes
// (the same converters' generationConfig fields): at the top level the API
// refuses them ("Unknown name").
var geminiGeneration = []string{
	"audioTimestamp", "audioTranscriptionConfig", "candidateCount", "enableEnhancedCivicAnswers",
	"frequencyPenalty", "imageConfig", "logprobs", "maxOutputTokens", "mediaResolution",
	"modelConfig", "presencePenalty", "responseJsonSchema", "responseLogprobs", "responseMimeType",
	"responseModalities", "responseSchema", "routingConfig", "seed", "speechConfig",
	"stopSequences", "temperature", "thinkingConfig", "topK", "topP",
}

// geminiAliases are other APIs' names for a GenerationConfig member.
var geminiAliases = map[string]string{
	"max_tokens": "maxOutputTokens", "max_completion_tokens": "maxOutputTokens",
	"stop": "stopSequences", "n": "candidateCount",
}

// camel is name in lowerCamelCase: "top_p" is "topP".
func camel(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if p := parts[i]; p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

// geminiFields checks the top-level members of a Gemini request: a
// GenerationConfig member there (or another API's name for one) is refused
// naming generationConfig.<member>; any other name the API does not take
// is refused with the names it does. skip are names already reported.
func geminiFields(fields map[string]json.RawMessage, skip []string) []Violation {
	c := checker{provider: Gemini}
	for _, k := range sortedKeys(fields) {
		name := camel(k)
		if slices.Contains(skip, k) || slices.Contains(geminiTopLevel, name) {
			continue
		}
		if a, ok := geminiAliases[k]; ok {
			name = a
		}
		if slices.Contains(geminiGeneration, name) {
			c.add("top-level-field", k, "Gemini takes %s in generationConfig, not at the top level: set generationConfig.%s", k, name)
			continue
		}
		c.add("top-level-field", k, "Gemini's generateContent request has no field %.60q: its top-level fields are %s, and generation settings go in generationConfig", k, strings.Join(geminiTopLevel, ", "))
	}
	return c.out
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// geminiFieldRules are the rule book's entry for Gemini's top-level fields.
var geminiFieldRules = []Rule{
	{"top-level-field", Gemini, "the request's top level", "only GenerateContentRequest's fields; temperature, topP, stopSequences, maxOutputTokens … in generationConfig",
		"Invalid JSON payload received. Unknown name \"temperature\": Cannot find field. (GenerateContentRequest: contents, tools, toolConfig, safetySettings, systemInstruction, generationConfig, cachedContent)",
		"https://ai.google.dev/api/generate-content#request-body",
		"NewSession refuses any other top-level Config.Extra field on a Gemini session, naming generationConfig.<field> for a generation setting (ErrConfig, with the fix); the checker reports the same in any body."},
}

func init() { rules = append(rules, geminiFieldRules...) }

package wire

// The providers' names, written once: request's Provider constants,
// registry's catalog formats (a provider's tools array is read in that
// provider's shape) and the rule book take them from here.
const (
	OpenAIChat      = "openai-chat"
	OpenAIResponses = "openai-responses"
	Anthropic       = "anthropic"
	Gemini          = "gemini"
)

// Known reports whether p names one of the four providers.
func Known(p string) bool {
	return p == OpenAIChat || p == OpenAIResponses || p == Anthropic || p == Gemini
}

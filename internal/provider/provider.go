// Package provider holds the one provider type of the library: the names of
// the four request encoders. Package request makes it public as
// request.Provider (an alias); internal/wire's rule book and checker,
// request/requesttest and registry's catalog formats (a provider's tools
// array is read in that provider's shape) use it from here, so that the
// provider names are written once.
package provider

// Name names a provider's request shape.
type Name string

// The four providers.
const (
	// OpenAIChat is OpenAI Chat Completions.
	OpenAIChat Name = "openai-chat"
	// OpenAIResponses is the OpenAI Responses API.
	OpenAIResponses Name = "openai-responses"
	// Anthropic is Anthropic Messages.
	Anthropic Name = "anthropic"
	// Gemini is the Gemini API's generateContent (Google AI and Vertex AI).
	Gemini Name = "gemini"
)

// Known reports whether p is one of the four providers.
func Known(p Name) bool {
	return p == OpenAIChat || p == OpenAIResponses || p == Anthropic || p == Gemini
}

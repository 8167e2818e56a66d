// Package toolname holds the naming rules of tools, in one place: the
// providers' tool-name rule, ^[a-zA-Z0-9_-]{1,64}$ (OpenAI's and
// Anthropic's alike), and the library's own: MCP tools' exposed names
// (mcp__<server>__<tool>, or an alias), canonical server names, the fixed
// group names, call-id limits and the tool-name pattern syntax of rules
// (pattern.go). The registry gives names by them; the
// stages that read names (defer's rules, execute, request, search,
// internal/engine/wire's checker, integration/mcp) use them from here rather than
// through the registry's public API.
package toolname

// MaxLen is the longest tool name the providers accept.
const MaxLen = 64

// Valid reports whether name matches ^[a-zA-Z0-9_-]{1,64}$.
func Valid(name string) bool {
	if len(name) == 0 || len(name) > MaxLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !Byte(name[i]) {
			return false
		}
	}
	return true
}

// Byte reports whether c may appear in a tool name.
func Byte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// MaxGeminiLen is the longest function name the Gemini API accepts
// (FunctionDeclaration.name in google.golang.org/genai's types.go).
const MaxGeminiLen = 128

// GeminiValid reports whether the Gemini API accepts name as a function
// name: it starts with a letter or an underscore, then letters, digits,
// underscores, dots, colons and dashes, at most [MaxGeminiLen] in all.
// Every registry name that starts with a letter or an underscore is one.
func GeminiValid(name string) bool {
	if len(name) == 0 || len(name) > MaxGeminiLen {
		return false
	}
	if c := name[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !Byte(c) && c != '.' && c != ':' {
			return false
		}
	}
	return true
}

// Package toolname holds the providers' tool-name rule,
// ^[a-zA-Z0-9_-]{1,64}$ (OpenAI's and Anthropic's alike), for the registry
// that gives names and the wire checker that verifies bodies.
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

package toolname

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"
)

// Limits on call ids (the rule book in internal/engine/wire cites the sources).
const (
	// MaxChatCallID is the longest call id sent to OpenAI Chat
	// Completions, in characters. Reports up to 2026 quote 40 and a later
	// live run 64; 40 is the bound every report agrees is safe.
	MaxChatCallID = 40
	// MaxResponsesCallID is the longest call_id the OpenAI Responses API
	// accepts, in characters.
	MaxResponsesCallID = 64
)

// ChatCallIDOK reports whether OpenAI Chat Completions accepts id as a
// tool call's id (and a tool message's tool_call_id): at most
// [MaxChatCallID] characters.
func ChatCallIDOK(id string) bool {
	return id != "" && utf8.RuneCountInString(id) <= MaxChatCallID
}

// ResponsesCallIDOK reports whether the OpenAI Responses API accepts id as
// a call_id: at most [MaxResponsesCallID] characters.
func ResponsesCallIDOK(id string) bool {
	return id != "" && utf8.RuneCountInString(id) <= MaxResponsesCallID
}

// AnthropicCallIDOK reports whether Anthropic accepts id as a tool_use id
// (and a tool_result's tool_use_id): it matches ^[a-zA-Z0-9_-]+$.
func AnthropicCallIDOK(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !Byte(id[i]) {
			return false
		}
	}
	return true
}

// callIDKeep is how much of an id its alias keeps readable: with "_" and
// 16 hex digits it makes MaxChatCallID.
const callIDKeep = MaxChatCallID - 17

// CallIDAlias returns the form in which a call id a provider refuses is
// sent: its first characters (at most 23, every one outside
// [A-Za-z0-9_-] written "_"), then "_" and the first 16 hex digits of the
// SHA-256 of the id. The alias is at most [MaxChatCallID] bytes of
// [A-Za-z0-9_-], so every provider accepts it; the same id always gives
// the same alias, and ids that read alike ("a.b", "a|b") do not share one.
func CallIDAlias(id string) string {
	b := make([]byte, 0, MaxChatCallID)
	for _, r := range id {
		if len(b) == callIDKeep {
			break
		}
		if r < utf8.RuneSelf && Byte(byte(r)) {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	sum := sha256.Sum256([]byte(id))
	b = append(b, '_')
	return string(hex.AppendEncode(b, sum[:8]))
}

// GeminiCallIDOK reports whether id is sent to the Gemini API as it is
// (functionCall.id, functionResponse.id): any non-empty id; the API
// documents no limit on it.
func GeminiCallIDOK(id string) bool { return id != "" }

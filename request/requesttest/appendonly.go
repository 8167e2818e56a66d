package requesttest

import (
	"bytes"
	"testing"

	"github.com/toolshelf/toolshelf/internal/wire"
)

// anthropicBreakpoint is the cache_control member Anthropic requests carry
// on the last block of the latest turn.
const anthropicBreakpoint = `,"cache_control":{"type":"ephemeral"}`

// AssertAppendOnly checks that next, the request body of the turn after
// prev in the same session, only appends to prev: prev's bytes, minus the
// closing "]}" of its messages (input) array and minus each provider's
// moving parts, are a prefix of next's. On failure it reports the first
// differing byte and its JSON path, and returns false.
//
// The moving parts are what a session rightly changes from turn to turn:
//
//   - "anthropic": the cache_control breakpoint on the last block of the
//     latest turn, which moves to the newest message every turn (so that
//     the whole history is cached). It is removed from both bodies — the
//     last cache_control after "messages" — before comparing; the prefix
//     breakpoints (system, tools) stay and must not move. And a user-side
//     message (tool result, user text) that follows a user-side message
//     joins it as more content blocks, since roles must alternate: the
//     previous body's last message then grows instead of being followed.
//   - "gemini": no breakpoint; a user-side message after a user-side
//     message joins its content as more parts, as for "anthropic".
//   - "openai-chat" and "openai-responses": none; the bodies themselves
//     extend each other.
//
// provider is a request.Provider or its name.
func AssertAppendOnly[P ~string](t testing.TB, provider P, prev, next []byte) bool {
	t.Helper()
	p, n := prev, next
	switch string(provider) {
	case "anthropic":
		p, n = dropLastBreakpoint(prev), dropLastBreakpoint(next)
	case "openai-chat", "openai-responses", "gemini":
	default:
		t.Errorf("requesttest: AssertAppendOnly: unknown provider %q (want anthropic, gemini, openai-chat or openai-responses)", string(provider))
		return false
	}
	if wire.PrefixLen(prev) < 0 || wire.PrefixLen(next) < 0 {
		t.Errorf("requesttest: AssertAppendOnly: a body is not a request body (no messages, input or contents array)")
		return false
	}
	head, ok := bytes.CutSuffix(p, []byte("]}"))
	if !ok {
		t.Errorf("requesttest: AssertAppendOnly: the previous body does not end its messages array with \"]}\"")
		return false
	}
	if bytes.HasPrefix(n, head) {
		return true
	}
	// Anthropic and Gemini merge a user-side message (a tool result, a
	// user message) into the user message before it: the next body
	// continues that message's content blocks (parts), after its last.
	if string(provider) == "anthropic" || string(provider) == "gemini" {
		if blocks, ok := bytes.CutSuffix(head, []byte("]}")); ok && bytes.HasPrefix(n, append(blocks[:len(blocks):len(blocks)], ',')) {
			return true
		}
	}
	d := wire.Diff(head, n[:min(len(head), len(n))])
	if d == nil { // next is shorter than prev: it dropped the end
		t.Errorf("requesttest: the next body (%d bytes) is shorter than the previous one (%d bytes): it does not extend it", len(next), len(prev))
		return false
	}
	t.Errorf("requesttest: the next body does not extend the previous one: %s", d)
	return false
}

// dropLastBreakpoint removes the last cache_control member after the
// messages key: Anthropic's latest-turn breakpoint.
func dropLastBreakpoint(b []byte) []byte {
	m := bytes.Index(b, []byte(`"messages":`))
	i := bytes.LastIndex(b, []byte(anthropicBreakpoint))
	if m < 0 || i < m {
		return b
	}
	out := make([]byte, 0, len(b)-len(anthropicBreakpoint))
	out = append(out, b[:i]...)
	return append(out, b[i+len(anthropicBreakpoint):]...)
}

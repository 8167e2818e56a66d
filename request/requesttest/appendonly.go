package requesttest

import (
	"testing"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/request"
)

// AssertAppendOnly checks that next, the request body of the turn after
// prev in the same session, only appends to prev: prev's bytes, minus the
// closing "]}" of its messages (input) array and minus each provider's
// moving parts, are a prefix of next's. On failure it reports the first
// differing byte and its JSON path, and returns false.
//
// The moving parts are what a session rightly changes from turn to turn:
//
//   - [request.Anthropic]: the cache_control breakpoint on the last block of the
//     latest turn, which moves to the newest message every turn (so that
//     the whole history is cached). It is removed from both bodies — the
//     last cache_control after "messages" — before comparing; the prefix
//     breakpoints (system, tools) stay and must not move. And a user-side
//     message (tool result, user text) that follows a user-side message
//     joins it as more content blocks, since roles must alternate: the
//     previous body's last message then grows instead of being followed.
//   - [request.Gemini]: no breakpoint; a user-side message after a
//     user-side message joins its content as more parts, as for Anthropic.
//   - [request.OpenAIChat] and [request.OpenAIResponses]: none; the bodies themselves
//     extend each other.
func AssertAppendOnly(t testing.TB, p request.Provider, prev, next []byte) bool {
	t.Helper()
	if msg := wire.AppendOnly(string(p), prev, next); msg != "" {
		t.Errorf("requesttest: %s", msg)
		return false
	}
	return true
}

// AssertConversation checks the append-only contract over a whole
// conversation: every body, in the order the session built them, keeps
// the first one's prefix (system, tools[]) byte for byte and extends the
// body before it — messages appended, nothing sent edited or dropped —
// with each provider's moving parts set aside as in [AssertAppendOnly]
// (and a native narrowing of tools[] after the messages, which a view
// change moves). On failure it reports the first violation: the body, the
// first differing byte and its JSON path (messages[2].content[0].text,
// say), and returns false.
func AssertConversation(t testing.TB, p request.Provider, bodies ...[]byte) bool {
	t.Helper()
	if msg := wire.Conversation(string(p), bodies...); msg != "" {
		t.Errorf("requesttest: %s", msg)
		return false
	}
	return true
}

// Package requesttest helps harness authors test the bytes their requests
// send, in the style of net/http/httptest: one line asserts that the turns
// of a conversation share their cached prefix, a failure names the first byte
// where two request bodies part and names the JSON section it sits in
// (tools[3].function.description, say), and [CheckProviderRules] checks a
// body against the provider's rule book.
//
// The package registers no flags: importing it never collides with a test
// package's own -update flag.
//
// API: [AssertStablePrefix], [AssertAppendOnly], [AssertConversation] and
// [CheckProviderRules] are the assertions.
package requesttest

import (
	"testing"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/request"
)

// AssertStablePrefix checks that every body has the same prefix (see
// [wire.PrefixLen]) as the first: the promise that each turn of a conversation
// hits the provider's prefix cache. On failure it reports the first
// differing byte and its JSON path, and returns false.
func AssertStablePrefix(t testing.TB, bodies ...[]byte) bool {
	t.Helper()
	problems := wire.StablePrefix(bodies...)
	for _, p := range problems {
		t.Errorf("requesttest: %s", p)
	}
	return len(problems) == 0
}

// CheckProviderRules checks body, a request body for provider
// (a request.Provider: request.OpenAIChat, request.OpenAIResponses,
// request.Anthropic or request.Gemini), against the provider's rule book ([wire.Rules]): the
// limits and shapes the real API refuses although an SDK's types accept
// them — name pattern, description length, max_tokens, empty failed
// results, whitespace-only text, strict, unanswered calls. It reports
// every violation with its JSON path and returns whether there was none.
func CheckProviderRules(t testing.TB, p request.Provider, body []byte) bool {
	t.Helper()
	vs := wire.Check(string(p), body)
	for _, v := range vs {
		t.Errorf("requesttest: %s body breaks the provider's rule %s", p, v)
	}
	return len(vs) == 0
}

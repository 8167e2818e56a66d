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
// API: [AssertStablePrefix], [AssertAppendOnly] and [CheckProviderRules]
// are the assertions. Body diffing itself is internal/wire's.
package requesttest

import (
	"testing"

	"github.com/toolshelf/toolshelf/internal/provider"
	"github.com/toolshelf/toolshelf/internal/wire"
)

// AssertStablePrefix checks that every body has the same prefix (see
// [wire.PrefixLen]) as the first: the promise that each turn of a conversation
// hits the provider's prefix cache. On failure it reports the first
// differing byte and its JSON path, and returns false.
func AssertStablePrefix(t testing.TB, bodies ...[]byte) bool {
	t.Helper()
	if len(bodies) == 0 {
		return true
	}
	n0 := wire.PrefixLen(bodies[0])
	if n0 < 0 {
		t.Errorf("requesttest: body 0 is not a request body (no messages, input or contents array)")
		return false
	}
	ok := true
	for i, b := range bodies[1:] {
		n := wire.PrefixLen(b)
		if n < 0 {
			t.Errorf("requesttest: body %d is not a request body (no messages, input or contents array)", i+1)
			ok = false
			continue
		}
		if d := wire.Diff(bodies[0][:n0], b[:n]); d != nil {
			t.Errorf("requesttest: the prefix of body %d differs from body 0's: %s", i+1, d)
			ok = false
		}
	}
	return ok
}

// CheckProviderRules checks body, a request body for provider
// (a request.Provider: request.OpenAIChat, request.OpenAIResponses,
// request.Anthropic or request.Gemini), against the provider's rule book ([wire.Rules]): the
// limits and shapes the real API refuses although an SDK's types accept
// them — name pattern, description length, max_tokens, empty failed
// results, whitespace-only text, strict, unanswered calls. It reports
// every violation with its JSON path and returns whether there was none.
func CheckProviderRules(t testing.TB, provider provider.Name, body []byte) bool {
	t.Helper()
	vs := wire.Check(provider, body)
	for _, v := range vs {
		t.Errorf("requesttest: %s body breaks the provider's rule %s", provider, v)
	}
	return len(vs) == 0
}

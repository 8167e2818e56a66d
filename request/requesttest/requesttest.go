// Package requesttest helps harness authors test the bytes their requests
// send, in the style of net/http/httptest: one line asserts that the turns
// of a conversation share their cached prefix, a failure names the first byte
// where two request bodies part and names the JSON section it sits in
// (tools[3].function.description, say), and [Golden] compares a body with
// a file under testdata/, rewritten when TOOLSHELF_UPDATE=1 ([UpdateEnv]).
//
// The package registers no flags: importing it never collides with a test
// package's own -update flag.
//
// API: [AssertStablePrefix], [AssertAppendOnly], [CheckProviderRules] and
// [Golden] are the assertions; [UpdateEnv] and [Updating] are the golden
// convention the whole repository follows. Body diffing itself is
// internal/wire's.
package requesttest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolshelf/toolshelf/internal/provider"
	"github.com/toolshelf/toolshelf/internal/wire"
)

// UpdateEnv names the environment variable that makes [Golden] rewrite
// golden files instead of comparing with them: TOOLSHELF_UPDATE=1 go test
// ./... rewrites every golden file of the repository in one run. It is an
// environment variable rather than a -update flag because a flag defined at
// import collides with a test package's own ("flag redefined: update"), and
// go test ./... -update fails in every package that does not define it.
const UpdateEnv = "TOOLSHELF_UPDATE"

// Updating reports whether golden files are being rewritten: [UpdateEnv]
// is set to 1.
func Updating() bool { return os.Getenv(UpdateEnv) == "1" }

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
		t.Errorf("requesttest: body 0 is not a request body (no messages or input array)")
		return false
	}
	ok := true
	for i, b := range bodies[1:] {
		n := wire.PrefixLen(b)
		if n < 0 {
			t.Errorf("requesttest: body %d is not a request body (no messages or input array)", i+1)
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

// Golden compares got with the file at path; when [Updating] it writes got
// to the file instead. A mismatch reports the first differing byte and
// its JSON path. When the file's name holds a provider between dots
// ("github.anthropic.json"), got is also checked against that provider's
// rule book ([CheckProviderRules]), so that no golden pins a body the
// provider would refuse.
func Golden(t testing.TB, path string, got []byte) bool {
	t.Helper()
	if p := providerOf(path); p != "" && !CheckProviderRules(t, p, got) {
		return false
	}
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("requesttest: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("requesttest: %v", err)
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("requesttest: %v (run the test with TOOLSHELF_UPDATE=1 to create it)", err)
		return false
	}
	if bytes.Equal(want, got) {
		return true
	}
	t.Errorf("requesttest: %s does not match (run with TOOLSHELF_UPDATE=1 if the change is intended): %s", path, wire.Diff(want, got))
	return false
}

// CheckProviderRules checks body, a request body for provider
// (a request.Provider: request.OpenAIChat, request.OpenAIResponses or
// request.Anthropic), against the provider's rule book ([wire.Rules]): the
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

// providerOf returns the provider a golden file's name holds between dots,
// or "".
func providerOf(path string) provider.Name {
	for _, part := range strings.Split(filepath.Base(path), ".") {
		if p := provider.Name(part); provider.Known(p) {
			return p
		}
	}
	return ""
}

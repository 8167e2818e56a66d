// Package goldenfile is toolshelf's own golden-file convention, used by the
// tests of the whole repository (request, search, budget, examples): a test
// compares its output with a file under testdata/, and
// TOOLSHELF_UPDATE=1 go test ./... rewrites every golden file in one run.
// It registers no flags, so it never collides with a test package's own
// -update flag. Harness authors test their request bodies with
// request/requesttest.
package goldenfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
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

// Golden compares got with the file at path; when [Updating] it writes got
// to the file instead. A mismatch reports the first differing byte and
// its JSON path. When the file's name holds a provider between dots
// ("github.anthropic.json"), got is also checked against that provider's
// rule book (wire.Check, as requesttest.CheckProviderRules), so that no
// golden pins a body the provider would refuse.
func Golden(t testing.TB, path string, got []byte) bool {
	t.Helper()
	if p := providerOf(path); p != "" {
		vs := wire.Check(p, got)
		for _, v := range vs {
			t.Errorf("goldenfile: %s body breaks the provider's rule %s", p, v)
		}
		if len(vs) > 0 {
			return false
		}
	}
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("goldenfile: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("goldenfile: %v", err)
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("goldenfile: %v (run the test with TOOLSHELF_UPDATE=1 to create it)", err)
		return false
	}
	if bytes.Equal(want, got) {
		return true
	}
	t.Errorf("goldenfile: %s does not match (run with TOOLSHELF_UPDATE=1 if the change is intended): %s", path, wire.Diff(want, got))
	return false
}

// providerOf returns the provider a golden file's name holds between dots,
// or "".
func providerOf(path string) string {
	for _, part := range strings.Split(filepath.Base(path), ".") {
		if wire.Known(part) {
			return part
		}
	}
	return ""
}

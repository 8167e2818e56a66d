package filekind

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/filekind/internal/build"
)

// TestOf: file names and paths in prose are recognised with their kind;
// hosts, URLs, addresses, numbers and abbreviations are not.
func TestOf(t *testing.T) {
	for w, want := range map[string]string{
		"report.pdf?":              File,
		"meeting.mp3":              "audio",
		"photo.PNG,":               "image",
		"clip.mp4":                 "video",
		"notes.md.":                "text",
		"main.go":                  "text",
		"data.csv":                 "text",
		"config.yaml":              "text",
		"budget.xlsx":              File,
		"~/Downloads/invoice.docx": File,
		`C:\Users\ana\cv.pdf`:      File,
		"(alice.md)":               "text",
		"2024.csv":                 "text",
		"Résumé.pdf":               File,
		"main.c":                   "text",
	} {
		got, ok := Of(w)
		assert.True(t, ok, w)
		assert.Equal(t, want, got, w)
	}
	for _, w := range []string{"example.com", "wikipedia.org", "https://a.io/x.png", "ana@example.pdf", "3.14", "v1.2", "e.g.", "i.e.",
		".bashrc", "file.", "report", "...", "a.unknownext", "", "/", strings.Repeat("a", 300) + ".pdf"} {
		_, ok := Of(w)
		assert.False(t, ok, w)
	}
}

// TestTableShape: the embedded table has a header naming its sources and
// one sorted "ext<TAB>kind" line per extension, kinds from the closed set.
func TestTableShape(t *testing.T) {
	prev := ""
	n := 0
	for line := range strings.Lines(table) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "#") {
			continue
		}
		ext, kind, ok := strings.Cut(line, "\t")
		require.True(t, ok, line)
		assert.Contains(t, []string{"audio", "font", "image", "model", "text", "video", File}, kind, line)
		assert.Greater(t, ext, prev, "sorted, unique")
		prev = ext
		n++
	}
	assert.Greater(t, n, 2000)
	assert.Len(t, kinds(), n)
}

// linguistEnv names the unpacked npm package linguist-languages 9.5.0
// (.ci/run sets it).
const linguistEnv = "TOOLSHELF_LINGUIST_DIR"

// TestRegenerate rebuilds the table from /etc/mime.types and Linguist's
// package and requires the embedded file to match it byte for byte.
func TestRegenerate(t *testing.T) {
	dir := os.Getenv(linguistEnv)
	if dir == "" {
		t.Skipf("%s not set (npm pack linguist-languages@9.5.0, unpacked): skipping the regeneration check", linguistEnv)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}
	if _, err := os.Stat("/etc/mime.types"); err != nil {
		t.Skip("/etc/mime.types missing (apt-get install media-types)")
	}
	got, err := build.Build("/etc/mime.types", dir)
	require.NoError(t, err)
	header := func(b []byte) string {
		var h []string
		for line := range strings.Lines(string(b)) {
			if strings.HasPrefix(line, "# sha256 ") {
				h = append(h, line)
			}
		}
		return strings.Join(h, "")
	}
	if header(got) != header([]byte(table)) {
		t.Skipf("the installed sources differ from those the table was built from:\n%s\nvs\n%s", header(got), header([]byte(table)))
	}
	assert.True(t, bytes.Equal(got, []byte(table)), "data/extensions.txt is stale: run go run ./internal/engine/filekind/internal/gen -linguist DIR")
}

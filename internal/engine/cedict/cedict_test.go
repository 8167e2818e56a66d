package cedict

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/cedict/internal/build"
)

func embeddedText(t *testing.T) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return b
}

// TestLookup: the embedded table translates common words, keeps names as
// words without translation, and knows nothing of Latin text.
func TestLookup(t *testing.T) {
	for w, want := range map[string]string{"删除": "delete", "合并": "merge", "截图": "screenshot", "数据库": "database", "天气": "weather"} {
		tr, ok := Lookup(w)
		require.True(t, ok, w)
		assert.Contains(t, tr, want, w)
		assert.LessOrEqual(t, len(tr), build.DefaultOptions.MaxTranslations, w)
	}
	tr, ok := Lookup("北京")
	assert.True(t, ok, "a place is a word")
	assert.Nil(t, tr, "a place has no translation")
	_, ok = Lookup("delete")
	assert.False(t, ok)
	_, ok = Lookup("")
	assert.False(t, ok)
	assert.Equal(t, build.DefaultOptions.MaxRunes, MaxRunes())
}

// TestLookupDoesNotAllocate: lookups return the shared table.
func TestLookupDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not the code's under the race detector")
	}
	Lookup("删除") // load
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		Lookup("删除")
		Lookup("没有这个词")
	}))
}

// TestTranslationsArePlain: every translation is one or two lower-case
// ASCII words (hyphens allowed inside a word), every headword Han only.
func TestTranslationsArePlain(t *testing.T) {
	for line := range strings.Lines(string(embeddedText(t))) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		tr, ok := Lookup(word)
		require.True(t, ok, word)
		if rest == "" {
			require.Nil(t, tr, word)
			continue
		}
		require.Equal(t, strings.Split(rest, "|"), tr, word)
		for _, s := range tr {
			ws := strings.Fields(s)
			require.True(t, len(ws) >= 1 && len(ws) <= build.DefaultOptions.MaxWords, "%s: %q", word, s)
			for _, w := range ws {
				require.False(t, strings.ContainsFunc(w, func(r rune) bool { return (r < 'a' || r > 'z') && r != '-' }), "%s: %q", word, s)
			}
		}
	}
}

func TestParseRejectsBadData(t *testing.T) {
	gz := func(s string) []byte {
		b, err := build.Gzip([]byte(s))
		require.NoError(t, err)
		return b
	}
	_, err := parse([]byte("not gzip"))
	assert.Error(t, err)
	_, err = parse(gz("# h\n合并\tmerge\n删除\tdelete\n"))
	assert.Error(t, err, "out of order")
	_, err = parse(gz("删除\tdelete||x\n"))
	assert.Error(t, err, "empty translation")
	tb, err := parse(gz("# h\n合并\tmerge\n张三\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"merge"}, tb.words["合并"])
	assert.Equal(t, 2, tb.maxRune)
}

// TestRegenerate rebuilds the table from the CC-CEDICT release named by
// $TOOLSHELF_CEDICT and compares it byte for byte with the embedded file. The
// release is not in the repository (CI has no copy either: it is fetched
// from MDBG or a mirror at development time), so without $TOOLSHELF_CEDICT the test
// is skipped.
func TestRegenerate(t *testing.T) {
	src := os.Getenv("TOOLSHELF_CEDICT")
	if src == "" {
		t.Skip("set TOOLSHELF_CEDICT to a CC-CEDICT release (cedict_1_0_ts_utf-8_mdbg.txt[.gz]) to check the embedded table")
	}
	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	text, _, err := build.Build(raw, build.DefaultOptions)
	require.NoError(t, err)
	header := func(b []byte) string {
		i := slices.IndexFunc(strings.Split(string(b), "\n"), func(l string) bool { return strings.HasPrefix(l, "# sha256 ") })
		return strings.Split(string(b), "\n")[max(i, 0)]
	}
	if header(text) != header(embeddedText(t)) {
		t.Skipf("$TOOLSHELF_CEDICT is another release than the embedded table's:\n%s\nvs\n%s", header(text), header(embeddedText(t)))
	}
	gz, err := build.Gzip(text)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(gz, packed), "embedded data/cedict-en.txt.gz is stale: run go generate ./internal/engine/cedict with CEDICT set")
}

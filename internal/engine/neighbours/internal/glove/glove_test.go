package glove

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture writes a small vector file and WordNet data files in which
// open and closed are antonyms, and returns their paths.
func fixture(t *testing.T, vecs map[string][]float64, words []string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	src := map[string]any{"dimensions": 3, "words": words, "vectors": vecs}
	b, err := json.Marshal(src)
	require.NoError(t, err)
	path := filepath.Join(dir, "vectors.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	wn := filepath.Join(dir, "wordnet")
	require.NoError(t, os.Mkdir(wn, 0o755))
	for _, f := range WordNetFiles {
		require.NoError(t, os.WriteFile(filepath.Join(wn, f), []byte("  1 licence text\n"), 0o644))
	}
	adj := "  1 licence text\n" +
		"00000001 00 a 01 open 0 001 ! 00000002 a 0101 | affording passage\n" +
		"00000002 00 a 01 closed 0 001 ! 00000001 a 0101 | not open\n"
	require.NoError(t, os.WriteFile(filepath.Join(wn, "data.adj"), []byte(adj), 0o644))
	return path, wn
}

func cos(a, b []float64) float64 {
	var d, na, nb float64
	for i := range a {
		d += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return d / math.Sqrt(na*nb)
}

// lists parses Build's output into word → neighbours with cosines.
func lists(t *testing.T, text []byte) (map[string][]string, map[string][]int, string) {
	t.Helper()
	words, coss := map[string][]string{}, map[string][]int{}
	header := ""
	for line := range strings.Lines(string(text)) {
		if strings.HasPrefix(line, "#") {
			header += line
			continue
		}
		w, rest, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		require.True(t, ok, line)
		for item := range strings.SplitSeq(rest, ",") {
			n, c, ok := strings.Cut(item, ":")
			require.True(t, ok, item)
			v, err := strconv.Atoi(c)
			require.NoError(t, err)
			words[w] = append(words[w], n)
			coss[w] = append(coss[w], v)
		}
	}
	return words, coss, header
}

// TestBuild checks the generator's rules on a small input: the vocabulary
// leaves out stop words and words that are not lower-case letters; a
// neighbour sharing the word's stem, a WordNet antonym and one below the
// cosine floor are dropped; cosines are rounded down to hundredths.
func TestBuild(t *testing.T) {
	vecs := map[string][]float64{
		"the":    {1, 0.05, 0, 0, 0},
		"open":   {1, 0, 0, 0, 0},
		"opened": {0.99, 0.1, 0, 0, 0},
		"closed": {0.95, 0.2, 0, 0, 0},
		"shut":   {0.9, 0.3, 0, 0, 0},
		"door":   {0.8, 0.5, 0.1, 0, 0},
		"cat":    {0, 0, 1, 0, 0},
		"x1":     {1, 0, 0, 0, 0},
		"Open":   {1, 0, 0, 0, 0},
	}
	// The wink file's vectors carry two more numbers (norm and index).
	for w, v := range vecs {
		vecs[w] = v[:3]
		vecs[w] = append(vecs[w], 1, 0)
	}
	words := []string{"the", "x1", "Open", "open", "opened", "closed", "shut", "door", "cat"}
	path, wn := fixture(t, vecs, words)
	opt := Options{Vocab: 100, MinLen: 3, K: 2, MinCos: 50, Antonyms: true}
	text, err := Build(path, wn, map[string]bool{"the": true}, opt)
	require.NoError(t, err)
	got, coss, header := lists(t, text)

	assert.Equal(t, []string{"shut", "door"}, got["open"], "opened shares open's stem, closed is its antonym")
	assert.Equal(t, int(math.Floor(cos(vecs["open"][:3], vecs["shut"][:3])*100)), coss["open"][0])
	assert.NotContains(t, got, "the", "a stop word is not in the vocabulary")
	assert.NotContains(t, got, "x1")
	assert.NotContains(t, got, "cat", "nothing is near cat")
	for w, nbs := range got {
		assert.NotContains(t, nbs, "the", w)
		assert.NotContains(t, nbs, "cat", w)
	}
	assert.Contains(t, header, "# antonyms dropped ")
	assert.Contains(t, header, "# sha256 ")
	assert.NotContains(t, header, "antonyms dropped 0\n")

	// Without the antonym filter, closed is open's neighbour.
	opt.Antonyms = false
	text, err = Build(path, wn, map[string]bool{"the": true}, opt)
	require.NoError(t, err)
	got, _, _ = lists(t, text)
	assert.Equal(t, []string{"closed", "shut"}, got["open"])

	// Mutual: door keeps open only if open keeps door.
	opt = Options{Vocab: 100, MinLen: 3, K: 1, MinCos: 50, Antonyms: true, Mutual: true}
	text, err = Build(path, wn, nil, opt)
	require.NoError(t, err)
	got, _, _ = lists(t, text)
	for w, nbs := range got {
		for _, n := range nbs {
			assert.Contains(t, got[n], w, "%s → %s is not mutual", w, n)
		}
	}

	// The same input twice: the same bytes.
	again, err := Build(path, wn, nil, opt)
	require.NoError(t, err)
	assert.Equal(t, text, again)
}

// TestBuildRejects: a malformed input is an error, never a panic.
func TestBuildRejects(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"notjson":   "{",
		"nodims":    `{"words":["open"],"vectors":{"open":[1,0,0]}}`,
		"short":     `{"dimensions":3,"words":["open"],"vectors":{"open":[1]}}`,
		"zero":      `{"dimensions":3,"words":["open"],"vectors":{"open":[0,0,0,1,0]}}`,
		"novector":  `{"dimensions":3,"words":["open"],"vectors":{}}`,
		"badvector": `{"dimensions":3,"words":["open"],"vectors":{"open":"x"}}`,
	} {
		p := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		_, err := Build(p, "/nonexistent", nil, Options{Vocab: 10, MinLen: 3, K: 2, MinCos: 50})
		assert.Error(t, err, name)
	}
	_, err := Build(filepath.Join(dir, "missing.json"), "", nil, DefaultOptions)
	assert.Error(t, err)
}

// TestStopWords reads the search package's stop-word literal.
func TestStopWords(t *testing.T) {
	stop, err := StopWords("../../../toolsearch/text.go")
	require.NoError(t, err)
	for _, w := range []string{"the", "and", "please", "tool"} {
		assert.True(t, stop[w], w)
	}
	assert.False(t, stop["create"])
	other := filepath.Join(t.TempDir(), "text.go")
	require.NoError(t, os.WriteFile(other, []byte("package search\n"), 0o644))
	_, err = StopWords(other)
	assert.ErrorIs(t, err, ErrFormat)
}

package toolsearch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// everydaySearcher is a searcher over the filesystem and memory servers.
func everydaySearcher(t *testing.T) *Searcher {
	t.Helper()
	return searcherOf(t, everydayCatalogs...)
}

// queryWords returns each query word with the ways it was found.
func queryWords(t *testing.T, s *Searcher, q ...string) map[string][]string {
	t.Helper()
	v, err := s.view(context.Background(), Scope{})
	require.NoError(t, err)
	ix, ok := v.index.(*bm25Index)
	require.True(t, ok)
	words, _ := ix.parseQuery(q)
	out := map[string][]string{}
	for _, w := range words {
		for _, a := range w.alts {
			if len(a.ids) > 0 {
				out[w.key] = append(out[w.key], a.via)
			}
		}
	}
	return out
}

// TestFileNamesAreWords: a file name says "file" as plainly as the word
// (issue 47: "how big is report.pdf?" was told "nothing fits" over the
// filesystem server), and a media file's extension says its medium.
func TestFileNamesAreWords(t *testing.T) {
	s := everydaySearcher(t)
	w := queryWords(t, s, "how big is report.pdf?")
	assert.Contains(t, w["file"], viaFileName, "%v", w)
	w = queryWords(t, s, "listen to the recording meeting.mp3 for me")
	assert.Contains(t, w["file"], viaFileName, "%v", w)
	assert.Contains(t, w["audio"], viaFileName, "%v", w)
	// A text file is what "file" means: no "text" word, which would pull
	// read_text_file's name over every other file tool.
	w = queryWords(t, s, "when was notes.txt last changed?")
	assert.NotContains(t, w, "text", "%v", w)
	// The query's own word is not doubled, and a host is not a file.
	w = queryWords(t, s, "open the file notes.md")
	assert.Equal(t, []string{"word"}, w["file"], "%v", w)
	w = queryWords(t, s, "open example.com in the browser")
	assert.NotContains(t, w, "file", "%v", w)

	hits, err := s.Search(context.Background(), []string{"listen to the recording meeting.mp3 for me"}, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "mcp__filesystem__read_media_file", hits[0].Name)
	assert.False(t, NothingFits(hits))
	hits, err = s.Search(context.Background(), []string{"show me holiday.jpg"}, 5, Scope{})
	require.NoError(t, err)
	assert.Positive(t, rankOf(hits, []string{"mcp__filesystem__read_media_file"}), "%+v", hits)
	assert.False(t, NothingFits(hits))
	hits, err = s.Search(context.Background(), []string{"how big is report.pdf?"}, 5, Scope{})
	require.NoError(t, err)
	assert.False(t, NothingFits(hits), "a file name is the filesystem server's word: %+v", hits)
}

// TestSaidWordCountsForNothingFits: a rare word of the request that a
// tool says in its own description is evidence that the tool addresses
// the request, however long the description (BM25's length
// normalisation ranks; it does not decide "nothing fits").
func TestSaidWordCountsForNothingFits(t *testing.T) {
	long := "Lists the notifications of the signed-in account, newest first, with their reason, subject, repository, " +
		"state, update time and a link; use it when someone asks what needs their attention today, and page through the rest " +
		"with the cursor it returns, filtering by repository, reason, participating or all, and by date when asked."
	tools := []*registry.Tool{{Name: "list_notifications", Description: long}}
	for i := range 12 {
		tools = append(tools, &registry.Tool{Name: fmt.Sprintf("op_%02d", i), Description: fmt.Sprintf("Operation %d on record %d of the ledger, by id.", i, i)})
	}
	ix, err := (&BM25F{}).Index(context.Background(), tools)
	require.NoError(t, err)
	hits, err := ix.Search(context.Background(), []string{"attention"}, 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "list_notifications", hits[0].Name)
	assert.Less(t, hits[0].Fit.Evidence, nothingFitsEvidence, "the long description dilutes the ranking's evidence: %+v", hits[0].Fit)
	assert.InDelta(t, 1, hits[0].Fit.Group, 0.01, "one word only this tool says: %+v", hits[0].Fit)
	assert.False(t, NothingFits(hits))
	// A word the tool does not say is still no evidence.
	hits, err = ix.Search(context.Background(), []string{"weather forecast"}, 5)
	require.NoError(t, err)
	assert.True(t, len(hits) == 0 || NothingFits(hits), "%+v", hits)
}

// TestGlossNamesAServer: a word whose dictionary definition names a
// server ("remember": "recall knowledge from memory") is evidence for
// that server, so the answer lists its tools rather than "answer without
// a tool"; a definition that only reaches a server's boilerplate ("book":
// "a written work", the filesystem tools' "only works within allowed
// directories") is not.
func TestGlossNamesAServer(t *testing.T) {
	s := everydaySearcher(t)
	// "forget" reaches the memory server in two steps: its definition
	// says "stop remembering", and remembering is a synonym of memory.
	// "memorise" names it through its derivation, memory, which no tool
	// says.
	for _, q := range []string{"remember that the dog's vet is Dr Silva", "erase Lisbon", "forget my locker code", "please memorise the wifi password"} {
		ans, err := s.answerFor(context.Background(), []string{q})
		require.NoError(t, err)
		assert.NotContains(t, ans.text, "answer without a tool", q)
		// Not sure: the memory server's tools are listed first.
		require.NotEmpty(t, ans.listed, ans.text)
		assert.True(t, strings.HasPrefix(ans.listed[0], "mcp__memory__"), "%q: %s", q, ans.text)
	}
	ans, err := s.answerFor(context.Background(), []string{"book a flight to Madrid"})
	require.NoError(t, err)
	assert.True(t, ans.abstained, ans.text)
	// The gloss decides nothing among tools: it adds no score.
	w := queryWords(t, s, "remember that the dog's vet is Dr Silva")
	assert.Contains(t, w["rememb"], "wordnet gloss", "%v", w)
}

// TestMeantServerFirst: when the search is not sure, the tools of a
// server the request names through what its words mean rank first — they
// score nothing, and an incidental word ("code") would otherwise fill the
// ranking with another server's tools. A server named by its own name
// ("everything", also a word) keeps the ranking's order: its tools score
// through the name.
func TestMeantServerFirst(t *testing.T) {
	s := everydaySearcher(t)
	hits, err := s.Search(context.Background(), []string{"forget my locker code"}, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	require.True(t, Abstains(hits))
	for _, h := range hits {
		assert.True(t, strings.HasPrefix(h.Name, "mcp__memory__"), "%s", h.Name)
	}
	ds := devSearcher(t)
	hits, err = ds.Search(context.Background(), []string{"Unstage everything I added by mistake."}, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "mcp__git__git_reset", hits[0].Name)
}

// TestHowAsksForTheAttribute: "how big" asks for a size, so the adjective
// right after "how" has its WordNet attribute as an alternative; "a big
// file" describes and asks nothing, so it has none.
func TestHowAsksForTheAttribute(t *testing.T) {
	s := everydaySearcher(t)
	w := queryWords(t, s, "how big is report.pdf?")
	assert.Contains(t, w["big"], "wordnet attribute", "%v", w)
	w = queryWords(t, s, "find a big file")
	assert.NotContains(t, w["big"], "wordnet attribute", "%v", w)
	w = queryWords(t, s, "how", "big") // each query string starts afresh
	assert.NotContains(t, w["big"], "wordnet attribute", "%v", w)
	hits, err := s.Search(context.Background(), []string{"how big is report.pdf?"}, 5, Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	// The two tools whose text says "size".
	assert.Contains(t, []string{"mcp__filesystem__get_file_info", "mcp__filesystem__list_directory_with_sizes"}, hits[0].Name)
}

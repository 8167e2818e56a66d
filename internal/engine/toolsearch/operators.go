package toolsearch

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/search"
)

// Query operators. Queries carry the user's own words, which contain "+"
// and ":" for reasons of their own (a phone number "+4915123577723",
// "C++", "a+b"), so an operator is recognised only where it cannot be
// ordinary text, and an operator that would empty the answer is relaxed.

// cutRequired reports whether a whitespace-separated chunk of a query is
// the "+word" operator (a "+" directly before a letter), and returns the
// chunk without it. "+4915…", "+", "++x", "C++" and "a+b" are plain text.
func cutRequired(chunk string) (string, bool) {
	if len(chunk) < 2 || chunk[0] != '+' {
		return chunk, false
	}
	r, _ := utf8.DecodeRuneInString(chunk[1:])
	if !unicode.IsLetter(r) {
		return chunk, false
	}
	return chunk[1:], true
}

// requiredWords returns the distinct words of queries written "+word", in
// order of appearance.
func requiredWords(queries []string) []string {
	var out []string
	for _, q := range queries {
		for _, chunk := range strings.Fields(q) {
			if w, ok := cutRequired(chunk); ok && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// withoutOperators rewrites queries with the "+" of each required word
// for which drop reports true removed, so that it is searched as a plain
// word.
func withoutOperators(queries []string, drop func(word string) bool) []string {
	out := make([]string, len(queries))
	for i, q := range queries {
		chunks := strings.Fields(q)
		for j, c := range chunks {
			if w, ok := cutRequired(c); ok && drop(w) {
				chunks[j] = w
			}
		}
		out[i] = strings.Join(chunks, " ")
	}
	return out
}

// rank runs queries through the index. When required words leave nothing,
// it relaxes them rather than answer empty: first the words no tool
// mentions at all, then the requirement as a whole. note says what was
// relaxed, in one line for the model; it is empty when nothing was.
func rank(ctx context.Context, idx search.Index, queries []string, limit int) (hits []search.Hit, note string, err error) {
	hits, err = idx.Search(ctx, queries, limit)
	if err != nil || len(hits) > 0 {
		return hits, "", err
	}
	req := requiredWords(queries)
	if len(req) == 0 {
		return nil, "", nil
	}
	var absent []string
	for _, w := range req {
		h, err := idx.Search(ctx, []string{w}, 1)
		if err != nil {
			return nil, "", err
		}
		if len(h) == 0 {
			absent = append(absent, w)
		}
	}
	if len(absent) > 0 && len(absent) < len(req) {
		q := withoutOperators(queries, func(w string) bool { return slices.Contains(absent, w) })
		if hits, err = idx.Search(ctx, q, limit); err != nil || len(hits) > 0 {
			return hits, relaxedNote(absent, true), err
		}
	}
	hits, err = idx.Search(ctx, withoutOperators(queries, func(string) bool { return true }), limit)
	if err != nil || len(hits) == 0 {
		return hits, "", err
	}
	if len(absent) > 0 {
		return hits, relaxedNote(absent, true), nil
	}
	return hits, relaxedNote(req, false), nil
}

// relaxedNote is the line that tells the model which required words were
// dropped: words no tool mentions (absent), or words no single tool
// mentions together.
func relaxedNote(words []string, absent bool) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(clip(w, 40))
	}
	list := strings.Join(q, ", ")
	if absent {
		return fmt.Sprintf("No tool mentions %s; showing the best matches without %s.", list, plural(len(words), "it", "them"))
	}
	return fmt.Sprintf("No tool mentions %s together; showing the best matches without requiring them.", list)
}

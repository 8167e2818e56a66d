package search_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// wordRanker stands for a harness's own ranking (an embedding model's, in
// practice): a tool scores one point per query word among its name's words,
// or its description's with desc set.
type wordRanker struct{ desc bool }

func (r wordRanker) Index(_ context.Context, tools []*registry.Tool) (search.Index, error) {
	return wordIndex{tools, r.desc}, nil
}

type wordIndex struct {
	tools []*registry.Tool
	desc  bool
}

func (ix wordIndex) Search(_ context.Context, queries []string, limit int) ([]search.Hit, error) {
	var hits []search.Hit
	for _, t := range ix.tools {
		words := strings.Split(t.Name, "_")
		if ix.desc {
			words = strings.Fields(strings.ToLower(strings.TrimSuffix(t.Description, ".")))
		}
		score := 0.0
		for _, q := range queries {
			for _, w := range strings.Fields(q) {
				if slices.Contains(words, w) {
					score++
				}
			}
		}
		if score > 0 {
			hits = append(hits, search.Hit{Name: t.Name, Score: score})
		}
	}
	// Best first, ties by name, as an Index must order them.
	slices.SortFunc(hits, func(a, b search.Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return hits[:min(limit, len(hits))], nil
}

// A harness fuses two rankings; a session takes it as
// request.Config{Search: &search.Options{Ranker: h}}, and there a nil
// Lexical is the built-in lexical ranking.
func ExampleHybrid() {
	tools := []*registry.Tool{
		{Name: "create_issue", Description: "Open a new issue in a repository."},
		{Name: "list_issues", Description: "List the issues of a repository."},
		{Name: "take_screenshot", Description: "Capture the screen."},
	}
	h := &search.Hybrid{Lexical: wordRanker{}, Second: wordRanker{desc: true}}
	idx, err := h.Index(context.Background(), tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	hits, _ := idx.Search(context.Background(), []string{"open a new issue"}, 3)
	for _, hit := range hits {
		fmt.Println(hit.Name, hit.Fit.Credible())
	}
	// Output:
	// create_issue true
	// list_issues true
}

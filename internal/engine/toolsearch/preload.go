package toolsearch

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/tagsafe"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Preloading (issue 38, "preload when sure"): on a user message the
// session runs tool_search's own fuzzy search on the message's text, and
// where the answer would be "found" with one clear tool (or two close
// siblings) it attaches their schemas to that same request, so the model
// calls without a search turn.

// MaxPreload is how many schemas a preload attaches at most: one clear
// tool, or two siblings scoring alike. An answer that would load three is
// not sure which one the model needs, and preloads nothing.
const MaxPreload = 2

// MaxPreloadChars bounds the text of a preload block (the schemas' text,
// as the model reads it: neutralised): about 1,000 o200k_base tokens. A tool whose schema would pass
// it is not preloaded; the model loads it with tool_search as before.
const MaxPreloadChars = 4000

// The preload gate on the ranking, chosen on the tune halves
// (docs/search-quality.md): of a grid of coverage 0–0.8 × margin 0.3–1 ×
// evidence 0–4, the gate firing most often (mean over the four positive
// sets) while precision is at least 0.94 on every tune half — the no-match
// set's, and since issue 47 the small catalogs' (unions of 2–4 servers,
// the everyday set over 23 tools, whose tasks of several steps it never
// fires on) included — leaving 4 points for the check halves under the
// 90% bar.
const (
	preloadCoverage = 0.3
	preloadMargin   = 0.75
	preloadEvidence = 3
)

// Sure returns the deferred tools a fuzzy tool_search on text would load
// as "found" — credible, with at most [MaxPreload] schemas — best first,
// or nil. It reads the same ranking, scope and presentation as
// [Searcher.Call]; loaded holds names already loaded, which are skipped.
// text is cut to Options.MaxQueryRunes.
func (s *Searcher) Sure(ctx context.Context, text string, sc Scope) ([]*registry.Tool, error) {
	c, err := s.sure(ctx, text, sc)
	if err != nil || !c.clear() {
		return nil, err
	}
	if sc.Loaded != nil {
		return dropLoaded(c.tools, sc.Loaded), nil
	}
	return c.tools, nil
}

// sureCase is what a preload decides on: the schemas a search would load
// as "found", the best hit's fit, and the margin to the first hit left
// out (its score over the best one's; 0 when there is none).
type sureCase struct {
	tools  []*registry.Tool
	fit    search.Fit
	margin float64
	named  bool // the text names the tools ([Searcher.named])
}

// clear reports whether c is sure enough to preload: one or two schemas
// that fit within the bound, a best hit covering preloadCoverage of the
// query, and the first tool left out scoring at most preloadMargin of the
// best.
func (c sureCase) clear() bool {
	if c.named {
		return len(c.tools) > 0
	}
	return len(c.tools) > 0 && c.fit.Coverage >= preloadCoverage && c.margin <= preloadMargin && c.fit.Evidence >= preloadEvidence
}

func (s *Searcher) sure(ctx context.Context, text string, sc Scope) (sureCase, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return sureCase{}, nil
	}
	if utf8.RuneCountInString(text) > s.opts.MaxQueryRunes {
		text = string([]rune(text)[:s.opts.MaxQueryRunes])
	}
	v, err := s.view(ctx, sc)
	if err != nil {
		return sureCase{}, err
	}
	if named, n := s.named(v, text, sc.Announced); n > 0 {
		// The user named deferred tools: one or two are sure, more are not
		// (which one comes first is the model's call, with tool_search).
		c := sureCase{named: true}
		if n <= MaxPreload {
			c.tools = named
		}
		return c.bounded(s), nil
	}
	hits, _, _, _, err := s.assemble(ctx, v, []string{text}, s.opts.MaxResults, false)
	if err != nil {
		return sureCase{}, err
	}
	var tools []*registry.Tool
	var kept []search.Hit
	for _, h := range hits {
		if t, ok := v.lookup(h.Name); ok {
			tools = append(tools, t)
			kept = append(kept, h)
		}
	}
	if len(kept) == 0 || Abstains(kept) || kept[0].Score <= 0 {
		return sureCase{}, nil
	}
	c := sureCase{fit: kept[0].Fit}
	for i, sh := range s.presentation(kept) {
		if sh != ShapeFull {
			c.margin = kept[i].Score / kept[0].Score
			break
		}
		c.tools = append(c.tools, tools[i])
	}
	return c.bounded(s), nil
}

// bounded drops c's tools when there are more than [MaxPreload] or their
// text passes [MaxPreloadChars]: the text the block carries, neutralised
// (issue 43: a description dense with tag-like text grows by it).
func (c sureCase) bounded(s *Searcher) sureCase {
	size := 0
	for _, t := range c.tools {
		size += len(s.preloadText(t))
	}
	if len(c.tools) > MaxPreload || size > MaxPreloadChars {
		c.tools = nil
	}
	return c
}

// maxNamedWords bounds how many words of a message are looked up as tool
// names: a message's first 200 identifier-like words.
const maxNamedWords = 200

// named returns the searchable tools text names — a word of it that is a
// tool's full name, or the short name of exactly one MCP tool — in the
// order of their first mention, and how many there are. Only
// identifier-like words count (with "_", "-" or "." inside): a tool named
// with a plain word ("fetch", "search") is not taken from prose.
func (s *Searcher) named(v view, text string, announced []*registry.Tool) ([]*registry.Tool, int) {
	var out []*registry.Tool
	seen := map[string]bool{}
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	for i, w := range words {
		if i == maxNamedWords {
			break
		}
		w = strings.Trim(w, ".-")
		if !strings.ContainsAny(w, "_-.") || seen[w] {
			continue
		}
		seen[w] = true
		t, ok := v.lookup(w)
		if !ok {
			if c := s.candidates(w, announced); len(c) == 1 {
				t, ok = v.lookup(c[0])
			}
		}
		if ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, len(out)
}

// dropLoaded returns tools without the ones already loaded.
func dropLoaded(tools []*registry.Tool, loaded LoadedTools) []*registry.Tool {
	var out []*registry.Tool
	for _, t := range tools {
		if !loaded.Has(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// preloadText is t's schema text as a preload block carries it: catalog
// text, which must not close the block or open another, neutralised. The
// bound ([MaxPreloadChars]) is measured on it.
func (s *Searcher) preloadText(t *registry.Tool) string { return tagsafe.Text(s.fullText(t)) }

// PreloadBlock is the host block that carries preloaded schemas: the same
// text a tool_search answer loads them with, marked as the host's, so the
// model knows it did not ask for them and calls them with defer_execute.
// The text is a pure function of the tools.
func (s *Searcher) PreloadBlock(tools []*registry.Tool) string {
	var b strings.Builder
	b.WriteString("<preloaded_tools>\nThe host loaded ")
	b.WriteString(plural(len(tools), "this deferred tool's schema", "these deferred tools' schemas"))
	b.WriteString(" for this message, without a tool_search: call ")
	b.WriteString(plural(len(tools), "it", "them"))
	b.WriteString(" with defer_execute {\"tool_name\": \"<name>\", \"params\": {...}}, or use tool_search for others.\n\n")
	for _, t := range tools {
		b.WriteString(s.preloadText(t))
	}
	b.WriteString("</preloaded_tools>")
	return b.String()
}

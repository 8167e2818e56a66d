package toolsearch

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Overlay is one session's self-built tools made searchable: a small index
// over those tools alone, built with the searcher's [search.Ranker], searched next
// to the shared index and merged with it by score. Sessions sharing a
// [Searcher] each keep their own Overlay, so a session that writes a tool
// never rebuilds the shared index, and no session sees another's tools.
// The zero value is ready to use; an Overlay is safe for concurrent use.
//
// The built-in [BM25F] scores the overlay's tools with the shared index's
// corpus statistics (IDF over both), so merged scores compare. Another
// Ranker's scores are merged as its indexes return them.
type Overlay struct {
	mu     sync.Mutex
	tools  []*registry.Tool // the announced tools the index was built over
	index  search.Index
	byName map[string]*registry.Tool
	builds int
}

// Builds returns how many times the overlay built its index: once per
// distinct set of announced tools.
func (o *Overlay) Builds() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.builds
}

// get returns the index over tools, building it when the set changed since
// the last call. Tools are compared by identity: a session's self-built
// tools are immutable once registered.
func (o *Overlay) get(ctx context.Context, r search.Ranker, base search.Index, tools []*registry.Tool) (search.Index, map[string]*registry.Tool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.index != nil && slices.Equal(o.tools, tools) {
		return o.index, o.byName, nil
	}
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, func(a, b *registry.Tool) int { return strings.Compare(a.Name, b.Name) })
	idx, err := r.Index(ctx, sorted)
	if err != nil {
		return nil, nil, err
	}
	if c, ok := base.(calibrator); ok {
		idx = c.calibrate(idx)
	}
	by := make(map[string]*registry.Tool, len(sorted))
	for _, t := range sorted {
		by[t.Name] = t
	}
	o.tools, o.index, o.byName = slices.Clone(tools), idx, by
	o.builds++
	return idx, by, nil
}

// merged searches the shared index and a session's overlay together.
type merged struct {
	base, over search.Index
	// replaced are the overlay's tools; a base hit of the same name is an
	// older definition the session replaced, and is dropped.
	replaced map[string]*registry.Tool
}

// Search returns the best limit hits of both indexes: score descending,
// then name ascending, as one index would order them.
func (m merged) Search(ctx context.Context, queries []string, limit int) ([]search.Hit, error) {
	a, err := m.base.Search(ctx, queries, limit)
	if err != nil {
		return nil, err
	}
	b, err := m.over.Search(ctx, queries, limit)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return a, nil
	}
	out := make([]search.Hit, 0, len(a)+len(b))
	for _, h := range a {
		if m.replaced[h.Name] == nil {
			out = append(out, h)
		}
	}
	out = append(out, b...)
	slices.SortStableFunc(out, func(x, y search.Hit) int {
		switch {
		case x.Score > y.Score:
			return -1
		case x.Score < y.Score:
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

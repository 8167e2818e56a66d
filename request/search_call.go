package request

import (
	"context"
	"encoding/json"

	"github.com/toolshelf/toolshelf/internal/engine/tagsafe"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// search answers a tool_search call. With a dispatcher it is a call like
// the others: its permission rules, its hooks and its events
// (the dispatcher's Search, [execute.Dispatcher.Search]); without one it runs
// as is.
func (s *Session) search(ctx context.Context, f *frozenPrefix, scope toolsearch.Scope, args json.RawMessage) registry.Result {
	run := func(ctx context.Context, args json.RawMessage) (registry.Result, []string) {
		before := s.loaded.Names()
		res := f.searcher.Call(ctx, args, scope)
		// Search results quote catalog descriptions: neutralised like
		// every other tool result (package execute does the rest).
		res.Text = tagsafe.Text(res.Text)
		return res, newNames(before, s.loaded.Names())
	}
	if s.cfg.Dispatcher == nil {
		res, _ := run(ctx, args)
		return res
	}
	return s.cfg.Dispatcher.Search(ctx, dispatchSession{s}, args, run)
}

// newNames returns the names of after (sorted) missing from before
// (sorted): what a search loaded. A call of the same session racing the
// search may add a name of its own; events report it as the search's.
func newNames(before, after []string) []string {
	var out []string
	i := 0
	for _, n := range after {
		for i < len(before) && before[i] < n {
			i++
		}
		if i < len(before) && before[i] == n {
			continue
		}
		out = append(out, n)
	}
	return out
}

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
// ([Session.guardLoad]); without one it runs as is. The searcher returns
// what it loaded, which the session's tool state marks.
func (s *Session) search(ctx context.Context, f *frozenPrefix, scope toolsearch.Scope, args json.RawMessage) registry.Result {
	run := func(ctx context.Context, args json.RawMessage) (registry.Result, []string) {
		res, loaded := f.searcher.Load(ctx, args, scope)
		// Search results quote catalog descriptions: neutralised like
		// every other tool result (package execute does the rest).
		res.Text = tagsafe.Text(res.Text)
		return res, loaded
	}
	res, loaded, _ := s.guardLoad(ctx, "", args, nil, run)
	s.tools.markLoaded(loaded...)
	return res
}

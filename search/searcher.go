package search

import (
	"context"
	"encoding/json"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// Options configures a [Searcher]. Nil means defaults.
// (Placeholder: fields are added by the search work.)
type Options struct{}

// Scope is one session's side of a search call. A Searcher is shared by
// every session with the same plan; what differs per session lives here.
type Scope struct {
	// Loaded is the session's loaded set; schemas returned are marked in it.
	Loaded *LoadedSet
	// Announced are self-built tools announced mid-session: searchable, but
	// not in the frozen index.
	Announced []*registry.Tool
	// Pending names MCP servers still connecting, so a miss can say "not
	// ready yet" rather than "does not exist".
	Pending []string
}

// Searcher answers tool_search calls over a plan's deferred tools. It is
// built once per session (or shared by sessions with the same plan) and is
// safe for concurrent use.
type Searcher struct {
	plan *deferral.Plan
}

// New builds the searcher and its index for plan.
func New(plan *deferral.Plan, opts *Options) (*Searcher, error) {
	return &Searcher{plan: plan}, nil
}

// IndexText returns the <available_deferred_tools> block for the description.
func (s *Searcher) IndexText() string {
	out := "<available_deferred_tools>\n"
	for _, t := range s.plan.Deferred() {
		out += t.Name + "\n"
	}
	return out + "</available_deferred_tools>"
}

// Call answers one tool_search call. Errors are model-facing results.
func (s *Searcher) Call(ctx context.Context, args json.RawMessage, sc Scope) registry.Result {
	return registry.Result{Text: "tool_search is not implemented yet", IsError: true}
}

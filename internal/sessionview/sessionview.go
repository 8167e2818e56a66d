// Package sessionview gives toolshelf's own packages read access to what a
// request.Session and a request.Cache keep out of request's public API:
// the frozen prefix's system texts, exposed tools and tool_search index,
// which package budget measures (budget.Sections, budget.AccountFor), and
// the number of prefixes a cache holds, which internal/scale and
// internal/soak report. Package request sets the functions when it is
// initialised (it cannot be imported from here: budget sits above it), so
// they are non-nil in any program that imports request.
package sessionview

import (
	"encoding/json"

	deferral "github.com/toolshelf/toolshelf/defer"
)

// Tool is one exposed tool as the model sees it.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
	// Deferred marks a deferred tool sent with "defer_loading": true in a
	// native tool search mode. Always false in the portable mode, where
	// deferred tools are absent from tools[].
	Deferred bool
	// Strict marks a tool sent with "strict": true to an OpenAI API: the
	// session asked for it (request.Config.Strict) and its schema allows
	// it.
	Strict bool
}

// Prefix is a session's frozen prefix, read-only: everything it returns is
// shared and must not be modified.
type Prefix interface {
	// System returns the system texts in the order they are sent:
	// Config.System, then Config.SystemItems sorted.
	System() []string
	// Tools returns the exposed tools in tools[] order (resident tools in
	// snapshot order, then tool_search and defer_execute when anything is
	// deferred). In a native mode it holds the resident tools, then the
	// deferred ones (Deferred set); the provider's search tool, which has
	// no description or schema of ours, is not in the slice.
	Tools() []Tool
	// Index returns the tool_search name index, or "" when nothing is
	// deferred or the provider searches.
	Index() string
	// Plan returns the deferral plan the prefix was built from.
	Plan() *deferral.Plan
	// Prefix returns the encoded prefix: the request body up to the first
	// history message.
	Prefix() []byte
}

var (
	// Frozen returns the current frozen prefix of session, a
	// *request.Session.
	Frozen func(session any) Prefix
	// CacheLen returns the number of distinct frozen prefixes cache, a
	// *request.Cache, holds.
	CacheLen func(cache any) int
)

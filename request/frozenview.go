package request

import (
	"encoding/json"
)

// A FrozenPrefix is a read-only view of the part of a session's requests
// that stays byte-identical from turn to turn: its system texts, the tools
// it exposes and the tool_search index. A harness reads it to show or
// measure what the model was sent (package budget's Sections and
// AccountFor do); [Session.Prefix] is the same part encoded. Its slices
// are shared with the session and must not be modified.
type FrozenPrefix struct {
	// System holds the system texts in the order they are sent:
	// [Config.System], then [Config.SystemItems] sorted.
	System []string
	// Tools holds the exposed tools in tools[] order (resident tools in
	// snapshot order, then tool_search and defer_execute when anything is
	// deferred). In a native mode it holds the resident tools, then the
	// deferred ones (Deferred set); the provider's search tool, which has
	// no description or schema of ours, is not in the slice.
	Tools []FrozenTool
	// Index is the tool_search name index, or "" when nothing is deferred
	// or the provider searches ([Native]).
	Index string
}

// A FrozenTool is one exposed tool as the model sees it.
type FrozenTool struct {
	Name        string
	Description string // as rendered, cut to the provider's cap if it has one
	Schema      json.RawMessage
	// Deferred marks a deferred tool sent with "defer_loading": true in a
	// native tool search mode. Always false in the portable mode, where
	// deferred tools are absent from tools[].
	Deferred bool
	// Strict marks a tool sent with "strict": true to an OpenAI API: the
	// session asked for it (Config.Strict) and its schema allows it.
	Strict bool
}

// Frozen returns the session's frozen prefix: what it sends. A view
// change keeps it; only a [Session.SetView] that must rebuild the prefix
// changes it.
func (s *Session) Frozen() FrozenPrefix {
	f := s.current()
	return FrozenPrefix{System: f.system, Tools: f.tools, Index: f.index}
}

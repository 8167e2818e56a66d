package registry

import (
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/schemacheck"
)

// A Warning is one part of a tool's input schema that the dispatcher does
// not validate exactly as written: a pattern with no RE2 equivalent
// (lookaround, backreferences), a reference that leads nowhere inside the
// schema, a keyword whose value has the wrong type ... That keyword alone
// is left out of validation; the provider is sent the schema as written.
// A tool with warnings is registered: it is refused only for what would
// crash or hang the library, or what a provider refuses.
type Warning struct {
	// Tool is the tool's name: the exposed name once registered, the
	// source's name in a [Catalog].
	Tool string
	// Path is the JSON pointer, inside the tool's input schema, of the
	// schema that holds the keyword; "" is the root.
	Path string
	// Keyword is the keyword concerned ("pattern", "$ref" ...); "" when
	// the whole schema is concerned.
	Keyword string
	// Reason says what was done and why.
	Reason string
}

func (w Warning) String() string {
	at := w.Path
	if at == "" {
		at = "(root)"
	}
	s := w.Tool + ": " + at + ": "
	if w.Keyword != "" {
		s += w.Keyword + ": "
	}
	return s + w.Reason
}

func warningsOf(notes []schemacheck.Note) []Warning {
	if len(notes) == 0 {
		return nil
	}
	out := make([]Warning, len(notes))
	for i, n := range notes {
		out[i] = Warning{Path: n.Path, Keyword: n.Keyword, Reason: n.Reason}
	}
	return out
}

// Warnings returns the warnings of every registered tool, by tool name,
// each tool's in schema order. Nothing a schema leaves out of validation
// is silent: it is listed here (and in each [Tool.Warnings]).
func (r *Registry) Warnings() []Warning {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.tools))
	for n, t := range r.tools {
		if len(t.Warnings) > 0 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []Warning
	for _, n := range names {
		out = append(out, r.tools[n].Warnings...)
	}
	return out
}

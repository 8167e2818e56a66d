package toolsearch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/shortname"
	"github.com/toolshelf/toolshelf/registry"
)

// shortTable is the short-name table of the tools plan shows (resident and
// deferred) and the entry tools: the index lists by it and tool_search
// resolves by it.
func shortTable(plan *deferral.Plan) *shortname.Table {
	visible := make([]*registry.Tool, 0, len(plan.Resident())+len(plan.Deferred()))
	visible = append(visible, plan.Resident()...)
	visible = append(visible, plan.Deferred()...)
	return shortname.New(visible, registry.ToolSearchName, registry.DeferExecuteName)
}

// candidates returns the full names a name that is no visible tool's full
// name may stand for as a short name: the plan's tools, then the scope's
// announced MCP tools (which the frozen table does not hold).
func (s *Searcher) candidates(name string, announced []*registry.Tool) []string {
	out := s.short.Candidates(name)
	var extra []string
	for _, t := range announced {
		if sn, ok := shortname.Of(t); ok && sn == name && s.tools[t.Name] == nil {
			extra = append(extra, t.Name)
		}
	}
	if len(extra) == 0 {
		return out
	}
	return slices.Sorted(slices.Values(append(slices.Clone(out), extra...)))
}

// ambiguous says that name is the short name of several tools and how to
// name the one meant.
func ambiguous(name string, full []string) string {
	return fmt.Sprintf("%s is the short name of %d tools: %s. Name the one you mean in full, e.g. {\"tool_names\": [%q]}.",
		strconv.Quote(clip(name, 80)), len(full), strings.Join(full, ", "), full[0])
}

// ShortNames reports whether the index lists a tool by its short name (a
// deferred MCP tool whose short name is its alone), so that tool_search's
// description must say how such a name is called ([WithShortNames]).
func (s *Searcher) ShortNames() bool { return s.shortListed }

// listsShortNames reports whether the index of plan lists a short name.
func listsShortNames(plan *deferral.Plan, short *shortname.Table) bool {
	for _, t := range plan.Deferred() {
		if short.Listed(t) != t.Name {
			return true
		}
	}
	return false
}

// fullName takes a name [Searcher.Explain] was given to the full name of
// the searchable tool it means: itself when it is one, else the one tool
// whose short name it is. An ambiguous short name is an error naming the
// candidates.
func (s *Searcher) fullName(name string, announced []*registry.Tool) (string, error) {
	if _, ok := s.tools[name]; ok {
		return name, nil
	}
	for _, t := range announced {
		if t != nil && t.Name == name {
			return name, nil
		}
	}
	switch c := s.candidates(name, announced); len(c) {
	case 0:
		return name, nil
	case 1:
		return c[0], nil
	default:
		return "", fmt.Errorf("%w: %q is the short name of %d tools (%s): name one in full", ErrExplain, clip(name, 80), len(c), strings.Join(c, ", "))
	}
}

package main

import (
	"github.com/toolshelf/toolshelf/request/wire"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// sections describes a session's latest request as budget sections: the
// system prompt, each resident tool, the entry tools, the index inside
// tool_search's description, every message and every injected block.
// Package request does not list sections itself, so they are derived
// from the session's frozen tools and its messages.
func sections(s *request.Session, system string) []budget.Section {
	f := s.Frozen()
	out := []budget.Section{{Name: "system", Class: budget.ClassSystem, Kind: budget.KindProse, Text: system, Frozen: true}}
	if f.Index() != "" {
		// In tool_search's description (Anthropic) or in the system
		// instructions (OpenAI, which caps descriptions at 1,024).
		out = append(out, budget.Section{Name: "index", Class: budget.ClassIndex, Kind: budget.KindProse, Text: f.Index(), Frozen: true})
	}
	for _, t := range f.Tools() {
		class, desc := budget.ClassTool, t.Description
		switch t.Name {
		case registry.ToolSearchName:
			class = budget.ClassEntry
			desc = strings.TrimSuffix(desc, f.Index())
		case registry.DeferExecuteName:
			class = budget.ClassEntry
		}
		out = append(out,
			budget.Section{Name: t.Name, Class: class, Kind: budget.KindProse, Text: t.Name + "\n" + desc, Frozen: true},
			budget.Section{Name: t.Name, Class: class, Kind: budget.KindJSON, Text: string(t.Schema), Frozen: true})
	}
	for i, m := range s.Messages() {
		name := "message " + strconv.Itoa(i+1)
		for _, b := range m.Blocks {
			out = append(out, budget.Section{Name: name, Class: budget.ClassInjection, Kind: budget.KindProse, Text: b, Frozen: true})
		}
		text, kind := m.Text, budget.KindProse
		if strings.HasPrefix(text, "{") || strings.HasPrefix(text, "[") {
			kind = budget.KindJSON
		}
		for _, c := range m.ToolCalls {
			text += c.Name + string(c.Arguments)
		}
		if text != "" {
			out = append(out, budget.Section{Name: name, Class: budget.ClassMessage, Kind: kind, Text: text, Frozen: true})
		}
	}
	return out
}

// sharedPrefix is the number of leading bytes a and b have in common: what
// a provider's prefix cache can reuse of the previous request.
func sharedPrefix(a, b []byte) int {
	if d := wire.Diff(a, b); d != nil {
		return d.Offset
	}
	return len(a)
}

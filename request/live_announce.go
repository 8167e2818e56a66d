package request

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/registry"
)

// announcedOrigin names where an announced tool comes from: nothing for a
// self-built tool (the model wrote it), its server for a tool that arrived
// from an MCP server. Group names are registry names, safe in the block.
func announcedOrigin(t *registry.Tool) string {
	switch t.Source {
	case registry.SourceSelfBuilt:
		return ""
	case registry.SourceMCP:
		return " (new from MCP server " + t.Group + ")"
	}
	return " (new from " + t.Group + ")"
}

// liveNotes renders the announcements of one reconciliation: a
// <new_deferred_tool> block per arrived tool (the self-built path, with the
// server named), and per server one <tools_changed> block for the tools
// that left, came back or were updated. The words say what the model can
// do now.
func liveNotes(s *Session, p *syncPass) []string {
	var out []string
	var extra []*registry.Tool
	for i, t := range p.arrived {
		if i >= maxAnnouncedNames {
			extra = append(extra, t)
			continue
		}
		out = append(out, announce(t))
	}
	type lines struct{ also, back, left, updated []string }
	by := map[string]*lines{}
	get := func(t *registry.Tool) *lines {
		if by[t.Group] == nil {
			by[t.Group] = &lines{}
		}
		return by[t.Group]
	}
	for _, t := range extra {
		l := get(t)
		l.also = append(l.also, t.Name)
	}
	for _, t := range p.back {
		l := get(t)
		l.back = append(l.back, t.Name)
	}
	for _, t := range p.left {
		l := get(t)
		l.left = append(l.left, t.Name)
	}
	for _, t := range p.updated {
		l := get(t)
		l.updated = append(l.updated, t.Name)
	}
	servers := make([]string, 0, len(by))
	for g := range by {
		servers = append(servers, g)
	}
	slices.Sort(servers)
	var rest lines
	for i, g := range servers {
		l := by[g]
		if i >= maxAnnouncedServers {
			// Bounded per turn (issue 34): the servers past the bound
			// share one block.
			rest.also, rest.back = append(rest.also, l.also...), append(rest.back, l.back...)
			rest.left, rest.updated = append(rest.left, l.left...), append(rest.updated, l.updated...)
			continue
		}
		out = append(out, changeBlock(g,
			changeLine{labelAlsoNew, l.also}, changeLine{labelBack, l.back},
			changeLine{labelLeft, l.left}, changeLine{labelUpdated, l.updated}))
	}
	if n := len(servers) - maxAnnouncedServers; n > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "<tools_changed>\nThe tools of %d more servers changed during this session.", n)
		writeChangeLines(&b, []changeLine{{labelAlsoNew, rest.also}, {labelBack, rest.back}, {labelLeft, rest.left}, {labelUpdated, rest.updated}})
		b.WriteString(changeBlockEnd)
		out = append(out, b.String())
	}
	return out
}

// maxAnnouncedServers bounds the <tools_changed> blocks of one turn: the
// servers past it (sorted by name) share one block.
const maxAnnouncedServers = 10

// liveNoteState is a Sync announcement as saved (issue 22: stored
// announcements are data, rendered again): the names of the pass, by what
// happened to them, and which of the blocks [liveNotes] writes for the
// pass this one is.
type liveNoteState struct {
	Arrived []string `json:"arrived,omitempty"`
	Back    []string `json:"back,omitempty"`
	Left    []string `json:"left,omitempty"`
	Updated []string `json:"updated,omitempty"`
	Part    int      `json:"part"`
}

// liveNoteList returns the announcements of pass p as notes: each block's
// text with the pass's names as its data.
func liveNoteList(s *Session, p *syncPass) []note {
	texts := liveNotes(s, p)
	names := func(ts []*registry.Tool) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = t.Name
		}
		return out
	}
	out := make([]note, len(texts))
	for i, text := range texts {
		out[i] = note{text: text, data: noteState{Live: &liveNoteState{
			Arrived: names(p.arrived), Back: names(p.back), Left: names(p.left), Updated: names(p.updated), Part: i,
		}}}
	}
	return out
}

// renderLiveNote renders a saved Sync announcement again from the tools the
// restored session knows (restoreLive ran before): a name that is none of
// its tools, or a part the pass does not write, is an error.
func (s *Session) renderLiveNote(d *liveNoteState) (string, error) {
	tools := func(names []string) ([]*registry.Tool, error) {
		out := make([]*registry.Tool, len(names))
		for i, n := range names {
			t, ok := s.shownTool(n)
			if !ok {
				return nil, fmt.Errorf("tool %.80q is not one of the session's", n)
			}
			out[i] = t
		}
		return out, nil
	}
	var p syncPass
	var err error
	for _, f := range []struct {
		dst   *[]*registry.Tool
		names []string
	}{{&p.arrived, d.Arrived}, {&p.back, d.Back}, {&p.left, d.Left}, {&p.updated, d.Updated}} {
		if *f.dst, err = tools(f.names); err != nil {
			return "", err
		}
	}
	texts := liveNotes(s, &p)
	if d.Part < 0 || d.Part >= len(texts) {
		return "", fmt.Errorf("part %d of a change that writes %d blocks", d.Part, len(texts))
	}
	return texts[d.Part], nil
}

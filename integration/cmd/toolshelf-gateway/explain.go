package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// explainCmd connects the servers and says what a client of the profile is
// served of the tool name, and why.
func explainCmd(_ context.Context, f *flags, name string, stdout, _ io.Writer) error {
	g, p, err := start(f, nil)
	if err != nil {
		return err
	}
	defer g.close()
	g.waitReady(f.wait)
	_, err = fmt.Fprintln(stdout, g.explain(p, name))
	return err
}

// explain says whether a client of profile p is served the tool name and
// why: quarantined, outside the profile, denied by a rule, hidden by a
// mode, left out by the registry, on a server that is down, or listed
// (resident or deferred). name is an exposed name (mcp__server__tool) or a
// server's own tool name.
func (g *gateway) explain(p *profile, name string) string {
	snap := g.up.Snapshot()
	t, ok := snap.Tool(name)
	if !ok {
		var same []string
		for _, u := range snap.Tools() {
			if u.OriginalName == name {
				same = append(same, u.Name)
			}
		}
		if len(same) == 1 {
			t, ok, name = mustTool(snap, same[0]), true, same[0]
		} else if len(same) > 1 {
			return fmt.Sprintf("%s is the name of %d tools: %s; explain one of them.", name, len(same), strings.Join(same, ", "))
		}
	}
	if q, held := g.pins.quarantined(name); held {
		s := fmt.Sprintf("%s is not listed: it is quarantined because %s. Pinned %s, now %s. Review it and approve it with: toolshelf-gateway approve --pins %s %s",
			name, q.Reason, short(q.Pinned), short(&q.Now), orNone(g.pins.path), name)
		if q.Pinned != nil {
			s += "\npinned definition: " + string(q.Pinned.Definition)
		}
		return s + "\ncurrent definition: " + string(q.Now.Definition)
	}
	if !ok {
		return g.explainMissing(name)
	}
	g.refreshMu.Lock()
	twinWhy := maps.Clone(g.twinWhy)
	g.refreshMu.Unlock()
	for _, ts := range g.rules.twins {
		if slices.Contains(ts.members, t.Group) && twinWhy[ts.name] == "" {
			if _, folded := g.served.Snapshot().Group(ts.name); folded {
				return fmt.Sprintf("%s is listed folded: as mcp__%s__%s with target %q (Twins(%s: %s)).", name, ts.name, t.OriginalName, t.Group, ts.name, strings.Join(ts.members, ", "))
			}
		}
	}
	if !p.serves(t.Group) {
		return fmt.Sprintf("%s is not listed: profile %s serves only %s.", name, p.name, strings.Join(p.servers, ", "))
	}
	s, _, err := g.newSession(p, nil)
	if err != nil {
		return fmt.Sprintf("%s: cannot build a session to explain it: %v", name, err)
	}
	d, ok := s.Plan().Explain(name)
	if !ok {
		return fmt.Sprintf("%s is not in the served tools (the gateway has not listed it yet); try again.", name)
	}
	switch d.State {
	case deferral.Hidden:
		return fmt.Sprintf("%s is not listed: %s", name, d.Reason)
	case deferral.Resident:
		return fmt.Sprintf("%s is listed resident: its schema is in tools/list (%s).", name, d.Reason)
	}
	return fmt.Sprintf("%s is listed: deferred, its name in tool_search's index; tool_search loads its schema and defer_execute calls it (%s).", name, d.Reason)
}

// explainMissing explains a name no server lists.
func (g *gateway) explainMissing(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is not listed: no server lists a tool of that name.", name)
	for _, j := range g.up.Rejected() {
		if strings.HasSuffix(name, "__"+j.Name) || name == j.Name {
			fmt.Fprintf(&b, " Server %s listed a tool %s that the registry left out: %v.", j.Group, j.Name, j.Err)
		}
	}
	for _, n := range g.m.Servers() {
		if why := g.why(n); why != "" {
			fmt.Fprintf(&b, "\nServer %s is unavailable (its tools are unknown): %s", n, why)
		}
	}
	for _, n := range g.m.Pending() {
		fmt.Fprintf(&b, "\nServer %s is still connecting.", n)
	}
	var near []string
	for _, t := range g.up.Snapshot().Tools() {
		if strings.Contains(t.Name, name) || strings.Contains(name, t.OriginalName) {
			near = append(near, t.Name)
		}
	}
	if len(near) > 0 {
		slices.Sort(near)
		fmt.Fprintf(&b, "\nDid you mean: %s?", strings.Join(near[:min(len(near), 5)], ", "))
	}
	return b.String()
}

func mustTool(snap *registry.Snapshot, name string) *registry.Tool {
	t, _ := snap.Tool(name)
	return t
}

func short(p *pin) string {
	if p == nil {
		return "nothing"
	}
	return "sha256:" + p.SHA256[:12]
}

// listPins prints the quarantined tools of a pins file.
func listPins(path string, w io.Writer) error {
	f, err := readPinFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d tools pinned, %d quarantined\n", len(f.Pinned), len(f.Quarantined))
	names := make([]string, 0, len(f.Quarantined))
	for n := range f.Quarantined {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "quarantined %s: %s\n", n, f.Quarantined[n].Reason)
	}
	return nil
}

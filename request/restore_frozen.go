package request

import (
	"fmt"
	"slices"

	"github.com/toolshelf/toolshelf/registry"
)

// Restoring with a newer snapshot (issue 34): replicas connect their
// servers at their own times, so the snapshot a restoring process has may
// hold tools the saved session adopted as arrivals, or tools it never
// saw. The live state records what the prefix froze on — the frozen
// snapshot's group names, tool names and definition hashes — and the
// restore rebuilds the prefix from those tools of the given snapshot;
// the others reach the session as arrivals at the next Sync. The record
// only selects among the harness's own tools: it adds no definition.

// frozenRef is one tool of the snapshot a session's prefix froze on.
type frozenRef struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// frozenRecord is what the live state records of the frozen snapshot.
type frozenRecord struct {
	Groups []string    `json:"groups"`
	Tools  []frozenRef `json:"tools"`
}

// savedFrozen records s's frozen snapshot.
func savedFrozen(snap *registry.Snapshot) *frozenRecord {
	rec := &frozenRecord{}
	for _, g := range snap.Groups() {
		rec.Groups = append(rec.Groups, g.Name)
	}
	slices.Sort(rec.Groups)
	for _, t := range snap.Tools() {
		rec.Tools = append(rec.Tools, frozenRef{Name: t.Name, SHA256: definitionSHA256(t)})
	}
	return rec
}

// frozenSnapshot returns the snapshot the record describes, made of snap's
// own groups and tools: snap itself when they are all of it. A recorded
// tool that snap lacks, or whose definition changed, cannot rebuild the
// saved prefix: an error says which (the session cannot be restored on
// this snapshot; a new session can start on it).
func frozenSnapshot(snap *registry.Snapshot, rec *frozenRecord) (*registry.Snapshot, error) {
	if len(rec.Tools) > len(snap.Tools())+maxFrozenExtra || len(rec.Groups) > len(snap.Groups())+maxFrozenExtra {
		return nil, fmt.Errorf("frozen: %d tools and %d groups recorded, the snapshot has %d and %d", len(rec.Tools), len(rec.Groups), len(snap.Tools()), len(snap.Groups()))
	}
	names := make(map[string]bool, len(rec.Tools))
	for _, ref := range rec.Tools {
		t, ok := snap.Tool(ref.Name)
		if !ok {
			return nil, fmt.Errorf("frozen: tool %.80q, in the saved prefix, is not in the snapshot", ref.Name)
		}
		if sum := definitionSHA256(t); sum != ref.SHA256 {
			return nil, fmt.Errorf("frozen: tool %q changed since the session was saved (sha256 %.80s → %s): the saved prefix cannot be rebuilt from this snapshot", ref.Name, ref.SHA256, sum)
		}
		names[ref.Name] = true
	}
	for _, g := range rec.Groups {
		if _, ok := snap.Group(g); !ok {
			return nil, fmt.Errorf("frozen: group %.80q, in the saved prefix, is not in the snapshot", g)
		}
	}
	if len(names) == len(snap.Tools()) && len(rec.Groups) == len(snap.Groups()) {
		return snap, nil
	}
	r := registry.New(nil)
	for _, g := range snap.Groups() {
		if !slices.Contains(rec.Groups, g.Name) {
			continue
		}
		var tools []registry.Tool
		for _, t := range snap.Tools() {
			if t.Group == g.Name && names[t.Name] {
				c := *t
				if g.Source == registry.SourceMCP {
					c.Name = t.OriginalName
				}
				tools = append(tools, c)
			}
		}
		var err error
		switch g.Source {
		case registry.SourceMCP:
			err = r.ReplaceGroup(*g, tools)
		case registry.SourceSelfBuilt:
			if len(tools) > 0 {
				err = r.Register(tools...) // in the self-built group: checked as CheckSelfBuilt checks
			}
		default:
			if len(tools) > 0 {
				err = r.Register(tools...)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("frozen: rebuilding group %q: %w", g.Name, err)
		}
	}
	return r.Snapshot(), nil
}

// maxFrozenExtra bounds how many more names a record may list than the
// snapshot has (none can be found; the bound keeps a forged record's
// cost to the snapshot's size).
const maxFrozenExtra = 0

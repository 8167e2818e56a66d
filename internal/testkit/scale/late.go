package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// The late server: it connects after the sessions started, and the
// sessions that follow the registry adopt it at lateTurn.
const (
	lateTurn  = 3
	lateTool  = "mcp__late__quokka_census"
	lateQuery = "count quokkas in the census"
)

// withLateServer adds the late server's group to reg and returns the
// snapshot after it; the sessions froze on the one before.
func withLateServer(reg *registry.Registry) (*registry.Snapshot, error) {
	handler := func(_ context.Context, params json.RawMessage) (registry.Result, error) {
		return registry.Result{Text: fmt.Sprintf("quokkas counted (%d bytes of parameters)", len(params))}, nil
	}
	schema := json.RawMessage(`{"type":"object","properties":{"island":{"type":"string","description":"Island to count."}}}`)
	err := reg.ReplaceGroup(registry.Group{Name: "late", Description: "Wildlife census tools."}, []registry.Tool{
		{Name: "quokka_census", Description: "Count quokkas in the census of an island.", RawSchema: schema, Handler: handler},
		{Name: "wallaby_census", Description: "Count wallabies in the census of a park.", RawSchema: schema, Handler: handler},
	})
	if err != nil {
		return nil, err
	}
	return reg.Snapshot(), nil
}

type lateCounts struct {
	sessions, searches, found, calls atomic.Int64
}

// syncLate syncs a following session with the registry as it is at turn:
// before lateTurn the snapshot it froze on, then the one with the late
// server.
func syncLate(ss *session, turn int, snaps [2]*registry.Snapshot, late *lateCounts) error {
	snap := snaps[0]
	if turn >= lateTurn {
		snap = snaps[1]
	}
	c, err := ss.s.Sync(context.Background(), snap)
	if err != nil {
		return err
	}
	if len(c.Added) > 0 {
		late.sessions.Add(1)
	}
	return nil
}

// searched counts a search for the late tool, and calls it when it was
// found first.
func (l *lateCounts) searched(ctx context.Context, s *request.Session, text string) {
	l.searches.Add(1)
	own, other := strings.Index(text, lateTool), strings.Index(text, toolname.MCPPrefix)
	if own < 0 || own != other {
		return
	}
	l.found.Add(1)
	r := s.Call(ctx, registry.DeferExecuteName, json.RawMessage(`{"tool_name":"`+lateTool+`","params":{"island":"Rottnest"}}`))
	if !r.IsError && strings.HasPrefix(r.Text, "quokkas counted") {
		l.calls.Add(1)
	}
}

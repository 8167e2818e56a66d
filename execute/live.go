package execute

import (
	"context"
	"fmt"

	"github.com/toolshelf/toolshelf/registry"
)

// A LiveSession is a [Session] whose tool set follows its registry (see
// request.Session.Sync): a tool that left it is removed, which the
// dispatcher answers as such rather than as an unknown name, so that the
// model stops looking for it instead of guessing at spellings.
type LiveSession interface {
	Session
	// Removed reports whether name was in the session's tool set and left
	// it. Lookup reports such a tool as not found.
	Removed(name string) bool
}

// Report emits ev to [Options.OnEvent] and the logger, as the dispatcher's
// own decisions are: a session following its registry reports a tool whose
// definition changed ([EventToolChanged]) through the dispatcher that runs
// its calls, so that the harness audits both in one place.
func (d *Dispatcher) Report(ctx context.Context, ev Event) {
	ev.Tool = clip(ev.Tool, 80)
	d.emit(ctx, ev)
}

// removed answers a call of a tool that left the session's tool set.
func (d *Dispatcher) removed(ctx context.Context, c *call) registry.Result {
	d.emit(ctx, c.event(EventRemovedTool))
	return errResult(fmt.Sprintf("Tool %q was removed during this session: its server no longer offers it. Nothing was run. Do not call it again; use another tool, or find one with tool_search.", clip(c.target, 80)))
}

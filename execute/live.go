package execute

import (
	"context"

	"github.com/toolshelf/toolshelf/registry"
)

// ToolChanged emits an [Event] "tool_changed" to [Options.Observer], as
// the dispatcher's own decisions are: a
// session following its registry (request.Session.Sync) reports a tool
// whose definition changed through the dispatcher that runs its calls, so
// that the harness audits both in one place. A harness that follows tool
// changes itself reports them the same way.
func (d *Dispatcher) ToolChanged(ctx context.Context, session, tool, detail string) {
	d.emit(ctx, Event{Kind: EventToolChanged, Session: session, Tool: clip(tool, 80), Detail: detail})
}

// removed answers a call of a tool that left the session's tool set.
func (d *Dispatcher) removed(ctx context.Context, c *call) registry.Result {
	d.report(ctx, c, Event{Kind: EventRemovedTool})
	return errResult(textRemoved(c.target))
}

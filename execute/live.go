package execute

import (
	"context"

	"github.com/toolshelf/toolshelf/registry"
)

// removed answers a call of a tool that left the session's tool set.
func (d *Dispatcher) removed(ctx context.Context, c *call) registry.Result {
	d.report(ctx, c, Event{Kind: EventRemovedTool})
	return errResult(textRemoved(c.target))
}

package execute

import (
	"context"
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/shortname"
	"github.com/toolshelf/toolshelf/registry"
)

// resolveShort takes a defer_execute target that no visible tool has as
// its full name, read as a short name (an MCP tool's name without
// "mcp__<server>__", as the index lists it under the server's header), to
// the full name of the one visible tool that carries it. It runs before
// permission and hooks, so they see the full name. When the short name is
// several tools', it answers with their full names and stop is true; when
// it is nobody's, the target is left as it was.
func (d *Dispatcher) resolveShort(ctx context.Context, c *call) (res registry.Result, stop bool) {
	if b, ok := c.s.(LiveSession); ok {
		if full, ok := b.BoundName(c.target); ok {
			c.target = full // answered "removed" if it left
			return registry.Result{}, false
		}
	}
	lookup := func(n string) (*registry.Tool, bool) {
		t, _, ok := c.s.Lookup(n)
		return t, ok && t != nil
	}
	names := shortname.Match(c.target, c.s.VisibleNames(), lookup)
	switch len(names) {
	case 0:
		return registry.Result{}, false
	case 1:
		c.target = names[0]
		return registry.Result{}, false
	}
	d.report(ctx, c, Event{Kind: EventUnknownTool, Detail: fmt.Sprintf("ambiguous short name: %d tools", len(names))})
	return errResult(textAmbiguous(c.target, names)), true
}

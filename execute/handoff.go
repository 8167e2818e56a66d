package execute

import (
	"context"
	"encoding/json"

	"github.com/toolshelf/toolshelf/internal/dispatch"
	"github.com/toolshelf/toolshelf/internal/rulecheck"
	"github.com/toolshelf/toolshelf/registry"
)

// handoff is the dispatcher as package request's sessions run it
// ([dispatch.Of]); none of it is a harness's to call.
type handoff struct{ d *Dispatcher }

func init() {
	dispatch.Of = func(d any) dispatch.Dispatcher { return handoff{d.(*Dispatcher)} }
}

func (h handoff) Call(ctx context.Context, s dispatch.Session, name string, args json.RawMessage) registry.Result {
	return h.d.callTool(ctx, s, name, args)
}

func (h handoff) Search(ctx context.Context, s dispatch.Session, args json.RawMessage, run dispatch.SearchFunc) registry.Result {
	return h.d.search(ctx, s, args, run)
}

func (h handoff) Denied(t *registry.Tool) (string, bool) { return h.d.deniesAll(t) }

func (h handoff) ToolChanged(ctx context.Context, session, tool, detail string) {
	h.d.toolChanged(ctx, session, tool, detail)
}

func (h handoff) Rules() []rulecheck.Rule { return h.d.rules() }

func (h handoff) RuleUnmatched(ctx context.Context, session, rule, detail string) {
	h.d.ruleUnmatched(ctx, session, rule, detail)
}

package execute

import (
	"context"

	"github.com/toolshelf/toolshelf/registry"
)

// An Observer sees each dispatch — a tool call or a tool_search, as
// request.Session.Call runs them — from start to end with its context: what
// a tracer needs to make one span per dispatch (package
// integration/otel makes OpenTelemetry spans and metrics of it). Its
// methods are called synchronously from the dispatching goroutine and
// must be safe for concurrent use; a panic in one is not recovered.
type Observer interface {
	// Begin is called when a dispatch starts. The dispatch continues with
	// the context it returns: the approver, hooks, the handler and the
	// searcher see it, and so do Event and End.
	Begin(ctx context.Context, d Dispatch) context.Context
	// Event receives each decision of the dispatch, after [Options.OnEvent].
	Event(ctx context.Context, ev Event)
	// End is called once, when the dispatch returns, with the result the
	// model reads.
	End(ctx context.Context, r registry.Result)
}

// Dispatch describes a dispatch as it starts, before anything is checked.
type Dispatch struct {
	// Session is the session's ID.
	Session string
	// Name is the name the model called: a tool's, defer_execute (the
	// target follows in the events) or tool_search.
	Name string
	// CallID is the provider's ID of the call ([WithCallID]), or "".
	CallID string
}

// begin starts observing a dispatch, when there is an observer; s may be
// nil.
func (d *Dispatcher) begin(ctx context.Context, s Session, name, id string) context.Context {
	if d.opts.Observer == nil {
		return ctx
	}
	dp := Dispatch{Name: clip(name, 80), CallID: id}
	if s != nil {
		dp.Session = s.ID()
	}
	if out := d.opts.Observer.Begin(ctx, dp); out != nil {
		return out
	}
	return ctx
}

func (d *Dispatcher) end(ctx context.Context, r registry.Result) { d.opts.Observer.End(ctx, r) }

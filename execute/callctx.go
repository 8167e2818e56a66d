package execute

import "context"

type (
	callKey   struct{}
	callIDKey struct{}
)

// WithCallID returns a copy of ctx that carries id, the provider's ID of
// the tool call being dispatched (a tool_use id, a call_id). Pass it to
// request.Session.Call and the handler, hooks and events find it in
// [Call.ID] and [Event.CallID]:
//
//	res := s.Call(execute.WithCallID(ctx, c.ID), c.Name, c.Arguments)
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallFromContext returns the call a handler runs for: the session's ID
// (Call.Session), the tool name the model asked for
// (Call.Name — the target's name also when the model went through
// defer_execute, which Call.Via then says), the provider's call ID
// (Call.ID, set with [WithCallID]) and the params the handler got.
// ok is false outside a handler run by a [Dispatcher].
//
// It lets one registry, and one handler, serve any number of sessions:
// the handler reads whom it works for from its context, not from a
// closure over one session.
func CallFromContext(ctx context.Context) (c Call, ok bool) {
	c, ok = ctx.Value(callKey{}).(Call)
	return c, ok
}

// callID returns the call ID WithCallID put in ctx, or "".
func callID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// withCall returns ctx carrying a copy of cl for the handler.
func withCall(ctx context.Context, cl *Call) context.Context {
	return context.WithValue(ctx, callKey{}, *cl)
}

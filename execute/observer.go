package execute

import (
	"context"
	"log/slog"

	"github.com/toolshelf/toolshelf/registry"
)

// An Observer is where a [Dispatcher]'s events go: [Options.Observer] is its
// one sink, as a Handler is slog's. It sees each dispatch — a tool call or
// a tool_search, as request.Session.Call runs them — from start to end with
// its context: what a tracer needs to make one span per dispatch (package
// integration/otel makes OpenTelemetry spans and metrics of it), and, in
// between, each decision as an [Event]. Events outside a dispatch
// ("tool_changed" and "rule_unmatched", which request.Session reports to
// the observer of its dispatcher) reach Event alone.
// [OnEvent] adapts a plain callback, [LogEvents] a *slog.Logger, and
// [MultiObserver] combines several. Its methods are called synchronously
// from the dispatching goroutine and must be safe for concurrent use; a
// panic in one is not recovered.
type Observer interface {
	// Begin is called when a dispatch starts. The dispatch continues with
	// the context it returns: the approver, hooks, the handler and the
	// searcher see it, and so do Event and End.
	Begin(ctx context.Context, d Dispatch) context.Context
	// Event receives each decision of the dispatch.
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

// OnEvent returns an Observer that passes each [Event] to f and nothing
// else: an audit log or a test's recorder. f is called synchronously from
// the dispatching goroutine, so it must be safe for concurrent use. A
// callback that needs the context implements [Observer] itself.
func OnEvent(f func(Event)) Observer { return eventFunc(f) }

type eventFunc func(Event)

func (f eventFunc) Begin(ctx context.Context, _ Dispatch) context.Context { return ctx }
func (f eventFunc) End(context.Context, registry.Result)                  {}
func (f eventFunc) Event(_ context.Context, ev Event) {
	if f != nil {
		f(ev)
	}
}

// LogEvents returns an Observer that logs each [Event] on l, with the
// dispatch's context: message "execute: " and the kind ("execute:
// denied"), the event's non-empty fields as attributes (session, tool,
// via, rule, hook, pointer, detail, call_id; queries and loaded on
// "searched"). Allowed and completed calls log at Debug, host errors and
// panics at Error, refusals, handler errors, timeouts, changed tools and
// unmatched rules at Warn, the rest at Info. A nil l discards.
func LogEvents(l *slog.Logger) Observer {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return logObserver{l}
}

type logObserver struct{ log *slog.Logger }

func (o logObserver) Begin(ctx context.Context, _ Dispatch) context.Context { return ctx }
func (o logObserver) End(context.Context, registry.Result)                  {}
func (o logObserver) Event(ctx context.Context, ev Event) {
	lvl := ev.Kind.level()
	if !o.log.Enabled(ctx, lvl) {
		return
	}
	attrs := []slog.Attr{slog.String("session", ev.Session), slog.String("tool", ev.Tool)}
	if ev.Via != "" {
		attrs = append(attrs, slog.String("via", ev.Via))
	}
	if ev.Rule != "" {
		attrs = append(attrs, slog.String("rule", ev.Rule))
	}
	if ev.Hook != "" {
		attrs = append(attrs, slog.String("hook", ev.Hook))
	}
	if ev.Pointer != "" {
		attrs = append(attrs, slog.String("pointer", ev.Pointer))
	}
	if ev.Detail != "" {
		attrs = append(attrs, slog.String("detail", ev.Detail))
	}
	if ev.CallID != "" {
		attrs = append(attrs, slog.String("call_id", ev.CallID))
	}
	if ev.Kind == EventSearched {
		attrs = append(attrs, slog.Any("queries", ev.Queries), slog.Any("loaded", ev.Loaded))
	}
	o.log.LogAttrs(ctx, lvl, "execute: "+string(ev.Kind), attrs...)
}

// MultiObserver returns an Observer that passes every call to each of obs,
// as io.MultiWriter does writes: Begin and Event in the order given (each
// Begin receives the context the previous one returned), End in reverse
// order, so that spans close inside out. Nil observers are skipped.
func MultiObserver(obs ...Observer) Observer {
	var m multiObserver
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	if len(m) == 1 {
		return m[0]
	}
	return m
}

type multiObserver []Observer

func (m multiObserver) Begin(ctx context.Context, d Dispatch) context.Context {
	for _, o := range m {
		if out := o.Begin(ctx, d); out != nil {
			ctx = out
		}
	}
	return ctx
}

func (m multiObserver) Event(ctx context.Context, ev Event) {
	for _, o := range m {
		o.Event(ctx, ev)
	}
}

func (m multiObserver) End(ctx context.Context, r registry.Result) {
	for i := len(m) - 1; i >= 0; i-- {
		m[i].End(ctx, r)
	}
}

package execute

import (
	"context"
	"log/slog"
)

// EventKind names one decision of the dispatcher.
type EventKind uint8

// The decisions a [Dispatcher] reports.
const (
	// EventBadInput: the arguments were not a usable JSON object (or too
	// large, too deep, missing tool_name ...). Nothing ran.
	EventBadInput EventKind = iota + 1
	// EventUnknownTool: the name is unknown or hidden; the two are not told
	// apart. Nothing ran.
	EventUnknownTool
	// EventRecursion: defer_execute named defer_execute or tool_search.
	EventRecursion
	// EventUnloaded: a deferred tool was called before its schema was
	// loaded; the schema was returned and marked loaded. Nothing ran.
	EventUnloaded
	// EventInvalid: params failed schema validation; Pointer is the first
	// violation. Nothing ran.
	EventInvalid
	// EventInjectedIgnored: the model supplied a value for a host-injected
	// field; it was overwritten.
	EventInjectedIgnored
	// EventHostError: the host side failed (injection, an unresolvable
	// schema, a hook's invalid rewrite, a hook panic). Nothing ran.
	EventHostError
	// EventAllowed: permission granted; Rule names the rule or "default".
	EventAllowed
	// EventApproved: an ask rule matched and the approver said yes.
	EventApproved
	// EventRejected: an ask rule matched and the approver said no (or there
	// was no approver, or it failed).
	EventRejected
	// EventDenied: a deny rule (or a deny default) matched.
	EventDenied
	// EventBlocked: a before-call hook blocked the call.
	EventBlocked
	// EventRewritten: a before-call hook rewrote params.
	EventRewritten
	// EventNoHandler: the tool has no handler in this harness.
	EventNoHandler
	// EventHandlerError: the handler returned an error.
	EventHandlerError
	// EventPanic: the handler panicked; the panic became an error result.
	EventPanic
	// EventReplaced: an after-call hook changed the result, or (with no
	// Hook) invalid UTF-8 in the result was replaced with U+FFFD.
	EventReplaced
	// EventTruncated: the result was cut to the size bound.
	EventTruncated
	// EventCompleted: the handler ran; IsError is in Detail.
	EventCompleted
	// EventTimeout: [Options.CallTimeout] passed while the handler ran
	// (Detail says whether it returned within the grace period, and so
	// whether its result was used), or the caller's context ended and the
	// handler did not return; without a result the call answered a timeout
	// result and the handler's goroutine was left to finish on its own.
	EventTimeout
	// EventSearched: a tool_search call ran ([Dispatcher.Search]); Queries
	// holds what it asked for and Loaded the names whose schemas it
	// loaded.
	EventSearched
	// EventRemovedTool: the tool left the session's tool set (its server
	// no longer offers it); the call was answered as removed. Nothing ran.
	EventRemovedTool
	// EventToolChanged: a tool's definition changed under a session; the
	// session keeps the one it showed until the harness approves the
	// change. Reported by the session ([Dispatcher.Report]), not by a call.
	EventToolChanged
)

var eventNames = [...]string{
	EventBadInput:        "bad_input",
	EventUnknownTool:     "unknown_tool",
	EventRecursion:       "recursion",
	EventUnloaded:        "unloaded",
	EventInvalid:         "invalid",
	EventInjectedIgnored: "injected_ignored",
	EventHostError:       "host_error",
	EventAllowed:         "allowed",
	EventApproved:        "approved",
	EventRejected:        "rejected",
	EventDenied:          "denied",
	EventBlocked:         "blocked",
	EventRewritten:       "rewritten",
	EventNoHandler:       "no_handler",
	EventHandlerError:    "handler_error",
	EventPanic:           "panic",
	EventReplaced:        "replaced",
	EventTruncated:       "truncated",
	EventCompleted:       "completed",
	EventTimeout:         "timeout",
	EventSearched:        "searched",
	EventRemovedTool:     "removed_tool",
	EventToolChanged:     "tool_changed",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return "unknown_event"
}

// Event is one decision of the dispatcher, for audit: what the model tried,
// including calls a mode made impossible.
type Event struct {
	Kind EventKind
	// Session is the session's ID.
	Session string
	// Tool is the target tool's name as the model wrote it (clipped to 80
	// bytes): for defer_execute calls, the tool_name, never "defer_execute".
	Tool string
	// Via is "defer_execute" when the call came through the wrapper, else "".
	Via string
	// Rule is the permission rule that decided ("Deny(ImageGen)"), or
	// "default" when none matched.
	Rule string
	// Hook is the name of the hook that blocked, rewrote or replaced.
	Hook string
	// Pointer is the JSON pointer of the first validation violation.
	Pointer string
	// Detail says more, in words.
	Detail string
	// CallID is the provider's ID of the call ([WithCallID]), or "".
	CallID string
	// Queries are a search's queries (exact loads as "select:NAME,..."),
	// each clipped to 200 bytes; only on [EventSearched].
	Queries []string
	// Loaded are the names whose schemas a search loaded, sorted; only on
	// [EventSearched].
	Loaded []string
}

func (k EventKind) level() slog.Level {
	switch k {
	case EventAllowed, EventCompleted:
		return slog.LevelDebug
	case EventHostError, EventPanic:
		return slog.LevelError
	case EventDenied, EventRejected, EventBlocked, EventHandlerError, EventTimeout, EventToolChanged:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

func (d *Dispatcher) emit(ctx context.Context, ev Event) {
	if d.opts.OnEvent != nil {
		d.opts.OnEvent(ev)
	}
	if d.opts.Observer != nil {
		d.opts.Observer.Event(ctx, ev)
	}
	lvl := ev.Kind.level()
	if !d.log.Enabled(ctx, lvl) {
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
	d.log.LogAttrs(ctx, lvl, "execute: "+ev.Kind.String(), attrs...)
}

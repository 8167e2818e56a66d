package execute

import (
	"context"
	"encoding/json"

	"github.com/toolshelf/toolshelf/internal/dispatch"
	"github.com/toolshelf/toolshelf/registry"
)

// What package request runs of a dispatcher (see handoff.go), under the
// names the tests call.

func (d *Dispatcher) Call(ctx context.Context, s dispatch.Session, name string, args json.RawMessage) registry.Result {
	return d.callTool(ctx, s, name, args)
}

func (d *Dispatcher) Search(ctx context.Context, s dispatch.Session, args json.RawMessage, run dispatch.SearchFunc) registry.Result {
	return d.search(ctx, s, args, run)
}

func (d *Dispatcher) Denied(t *registry.Tool) (string, bool) { return d.deniesAll(t) }

// The default bounds, stated on the Options fields.
const (
	DefaultMaxParamsBytes = defaultMaxParamsBytes
	DefaultMaxDepth       = defaultMaxDepth
	DefaultMaxResultBytes = defaultMaxResultBytes
	DefaultMaxSchemas     = defaultMaxSchemas
	DefaultCallTimeout    = defaultCallTimeout
)

var ErrPermission = errPermission

// The event kinds, listed on EventKind.
const (
	EventBadInput        = eventBadInput
	EventUnknownTool     = eventUnknownTool
	EventRecursion       = eventRecursion
	EventUnloaded        = eventUnloaded
	EventInvalid         = eventInvalid
	EventInjectedIgnored = eventInjectedIgnored
	EventHostError       = eventHostError
	EventAllowed         = eventAllowed
	EventApproved        = eventApproved
	EventRejected        = eventRejected
	EventDenied          = eventDenied
	EventBlocked         = eventBlocked
	EventRewritten       = eventRewritten
	EventNoHandler       = eventNoHandler
	EventHandlerError    = eventHandlerError
	EventPanic           = eventPanic
	EventReplaced        = eventReplaced
	EventTruncated       = eventTruncated
	EventCompleted       = eventCompleted
	EventTimeout         = eventTimeout
	EventSearched        = eventSearched
	EventRemovedTool     = eventRemovedTool
	EventToolChanged     = eventToolChanged
)

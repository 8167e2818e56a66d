package execute

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

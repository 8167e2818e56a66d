package execute

import "github.com/toolshelf/toolshelf/registry"

// Session is what the dispatcher needs from a conversation. Package request's
// sessions implement it; tests may supply their own.
type Session interface {
	// ID identifies the session in events, logs and hooks.
	ID() string
	// Lookup returns a tool the session can see (resident, deferred, or
	// self-built in this session). Hidden and unknown tools both report
	// ok == false: the dispatcher cannot tell them apart, by design.
	// deferred reports whether the tool's schema is outside tools[].
	Lookup(name string) (t *registry.Tool, deferred bool, ok bool)
	// Loaded reports whether a deferred tool's schema was loaded.
	Loaded(name string) bool
	// MarkLoaded records that the model has now seen name's schema.
	MarkLoaded(name string)
	// VisibleNames returns every name the session can see, sorted; the
	// dispatcher suggests the closest ones for an unknown name.
	VisibleNames() []string
}

// Package countercache sizes and reads the cache of a budget.Counter for
// toolshelf's own load test, internal/scale, which bounds one shared
// counter's memory below budget's 8 MiB default and reports what it holds.
// A harness uses budget.NewCounter; the bound is not part of budget's API.
//
// Package budget registers the two functions at init (this package cannot
// import budget, which imports it): a program that imports budget can use
// them.
package countercache

var (
	newCounter func(enc string, maxBytes int) (any, error)
	cacheBytes func(counter any) (held, limit int)
)

// Register is called once, by package budget's init.
func Register(newFn func(enc string, maxBytes int) (any, error), bytesFn func(counter any) (held, limit int)) {
	newCounter, cacheBytes = newFn, bytesFn
}

// New returns a counter for the encoding enc ("o200k_base", ...; an unknown
// name is budget.NewCounter's error) whose cache holds at most maxBytes:
// texts plus 128 bytes each; 0 or less caches nothing. C is
// *budget.Counter.
func New[C any](enc string, maxBytes int) (C, error) {
	c, err := newCounter(enc, maxBytes)
	if err != nil {
		var zero C
		return zero, err
	}
	return c.(C), nil
}

// Bytes returns the bytes a *budget.Counter's cache holds now and its
// bound.
func Bytes(counter any) (held, limit int) { return cacheBytes(counter) }

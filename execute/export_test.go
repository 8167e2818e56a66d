package execute

// The default bounds, stated on the Options fields.
const (
	DefaultMaxParamsBytes = defaultMaxParamsBytes
	DefaultMaxDepth       = defaultMaxDepth
	DefaultMaxResultBytes = defaultMaxResultBytes
	DefaultMaxSchemas     = defaultMaxSchemas
	DefaultCallTimeout    = defaultCallTimeout
)

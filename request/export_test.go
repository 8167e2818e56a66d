package request

// Test-only access to what is not request's API.

// Frozen returns the session's frozen prefix and tools.
func (s *Session) Frozen() *frozenPrefix { return s.current() }

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

// Len returns the number of distinct frozen prefixes c holds.
func (c *Cache) Len() int { return c.len() }

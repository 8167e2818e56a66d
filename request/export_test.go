package request

import (
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
)

// Test-only access to what is not request's API.

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

// LoadedSet returns the session's set of loaded deferred tools.
func (s *Session) LoadedSet() *toolsearch.LoadedSet { return s.tools.loaded }

// Elevate grants the full tier.
func (s *Session) Elevate() error {
	v := s.View()
	v.Elevated = true
	return s.SetView(v)
}

// ConflictError is the error MemoryStore and Conversation.Commit return
// for a conflicting append.
type ConflictError = conflictError

// uncached returns the input tokens neither read from nor written to the
// cache.
func (u Usage) uncached() int { return u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens }

// ErrSequence and ErrTooManyTools are the unexported sentinels the tests
// match: a sequence error wraps ErrInvalidMessage, too many tools comes
// wrapped with ErrConfig.
var (
	ErrSequence     = errSequence
	ErrTooManyTools = errTooManyTools
)

// DropMessages drops the session's neutral messages now, as
// Config.DropMessages does from the start.
func (s *Session) DropMessages() { s.dropMessages() }

// Loaded reports whether a deferred tool's schema was loaded.
func (s *Session) Loaded(name string) bool { return s.tools.isLoaded(name) }

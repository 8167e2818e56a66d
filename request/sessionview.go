package request

import "github.com/toolshelf/toolshelf/internal/sessionview"

// The frozen prefix and a cache's size are not request's API; toolshelf's
// own accounting (package budget) and load tests read them through
// internal/sessionview.
func init() {
	sessionview.Frozen = func(s any) sessionview.Prefix { return s.(*Session).current() }
	sessionview.CacheLen = func(c any) int { return c.(*Cache).len() }
}

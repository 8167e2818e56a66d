package main

import "github.com/toolshelf/toolshelf/internal/wire"

// sharedPrefix is the number of leading bytes a and b have in common: what
// a provider's prefix cache can reuse of the previous request.
func sharedPrefix(a, b []byte) int {
	if d := wire.Diff(a, b); d != nil {
		return d.Offset
	}
	return len(a)
}

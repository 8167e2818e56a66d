// Package searchnote carries what a ranking has to say about one search
// (a second ranking that failed and was left out) from the ranker, deep
// in tool_search, to the dispatcher's "searched" event, through the
// search's context.
package searchnote

import (
	"context"
	"strings"
	"sync"
)

type key struct{}

// Notes collects the notes of one search; safe for concurrent use.
type Notes struct {
	mu   sync.Mutex
	list []string
}

// With returns ctx carrying a fresh Notes, and the Notes.
func With(ctx context.Context) (context.Context, *Notes) {
	n := &Notes{}
	return context.WithValue(ctx, key{}, n), n
}

// Add records note on the search of ctx; without Notes in ctx it does
// nothing. Notes beyond the first eight are dropped: a search makes one
// or two.
func Add(ctx context.Context, note string) {
	n, _ := ctx.Value(key{}).(*Notes)
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.list) < 8 {
		n.list = append(n.list, note)
	}
}

// String returns the notes joined by "; ", or "".
func (n *Notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.list, "; ")
}

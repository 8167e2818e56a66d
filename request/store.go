package request

import (
	"context"
	"errors"
	"fmt"
)

// A Store keeps the state of conversations whose turns may be served by
// different processes (replicas behind a load balancer). The harness backs
// it with whatever it runs — a key-value store, a SQL table, Redis (see
// integration/redisstore) — and [OpenConversation] and
// [Conversation.Commit] do the rest.
//
// A conversation is stored as a log: a snapshot (possibly none) and the
// records appended after it, oldest first, under a version that counts
// the appends. Each append names the version it was built on and succeeds
// only if that is still the stored version — optimistic concurrency, done
// by the store's own atomic primitive (a transaction, a compare-and-set, a
// script), never by a lock the harness holds across a turn.
//
// Records are opaque bytes to the store. Implementations must be safe for
// concurrent use.
type Store interface {
	// Load returns what is stored for the conversation id. A
	// conversation never appended to is not an error: it has version 0
	// and no records.
	Load(ctx context.Context, id string) (Stored, error)
	// Append adds rec if the conversation's stored version is still
	// version; the stored version becomes version+1. If the stored
	// version is another, Append changes nothing and returns an error
	// for which errors.Is(err, ErrConflict) holds, naming the
	// conversation, the version the append was built on and, when the
	// store knows it, the stored one.
	// A record with Snapshot set replaces the snapshot and every record
	// before it, in the same atomic step.
	Append(ctx context.Context, id string, version int64, rec Record) error
}

// Stored is a conversation's stored log, as [Store.Load] returns it.
type Stored struct {
	// Version counts the appends so far; 0 for a new conversation.
	Version int64
	// Snapshot is the latest snapshot record's data, nil if none.
	Snapshot []byte
	// Deltas are the data of the records appended after Snapshot,
	// oldest first.
	Deltas [][]byte
}

// Record is one append to a [Store]: a turn's delta or, now and then, a
// compacted snapshot of the whole conversation.
type Record struct {
	// Data is the record, in the library's format (opaque to the store).
	Data []byte
	// Snapshot marks a record that holds the whole state: it replaces
	// the stored snapshot and deltas.
	Snapshot bool
}

// ErrConflict reports an append built on a version the conversation has
// since moved past: another replica appended first. The turn was not
// stored; open the conversation again and rebuild the turn on the newer
// state (or, if the other append was this same turn, see
// [Conversation.LastTurn]).
var ErrConflict = errors.New("request: conversation changed since it was loaded")

// conflictError is the error request's test store and [Conversation.Commit]
// return for a conflicting append. errors.Is(err, ErrConflict) holds for
// it.
type conflictError struct {
	// ID is the conversation.
	ID string
	// Version is the version the append was built on; Stored is the
	// version found in the store, when the store knows it (else -1).
	Version, Stored int64
}

func (e *conflictError) Error() string {
	if e.Stored < 0 {
		return fmt.Sprintf("conversation %q: append at version %d: %v", e.ID, e.Version, ErrConflict)
	}
	return fmt.Sprintf("conversation %q: append at version %d, stored version is %d: %v", e.ID, e.Version, e.Stored, ErrConflict)
}

// Is reports whether target is [ErrConflict].
func (e *conflictError) Is(target error) bool { return target == ErrConflict }

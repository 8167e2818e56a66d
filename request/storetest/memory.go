package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/toolshelf/toolshelf/request"
)

// MemoryStore is a [request.Store] in one process's memory, for tests and
// for the reference of what a Store must do. Its zero value is ready to
// use. It copies what it is given and what it returns.
type MemoryStore struct {
	mu    sync.Mutex
	convs map[string]*memoryLog
}

type memoryLog struct {
	version  int64
	snapshot []byte
	deltas   [][]byte
}

// Load implements [request.Store].
func (m *MemoryStore) Load(ctx context.Context, id string) (request.Stored, error) {
	if err := ctx.Err(); err != nil {
		return request.Stored{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.convs[id]
	if l == nil {
		return request.Stored{}, nil
	}
	out := request.Stored{Version: l.version, Snapshot: slices.Clone(l.snapshot), Deltas: make([][]byte, len(l.deltas))}
	for i, d := range l.deltas {
		out.Deltas[i] = slices.Clone(d)
	}
	return out, nil
}

// Append implements [request.Store].
func (m *MemoryStore) Append(ctx context.Context, id string, version int64, rec request.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.convs[id]
	if l == nil {
		l = &memoryLog{}
	}
	if l.version != version {
		return fmt.Errorf("conversation %q: append at version %d, stored version is %d: %w", id, version, l.version, request.ErrConflict)
	}
	if m.convs == nil {
		m.convs = map[string]*memoryLog{}
	}
	m.convs[id] = l
	if rec.Snapshot {
		l.snapshot, l.deltas = slices.Clone(rec.Data), nil
	} else {
		l.deltas = append(l.deltas, slices.Clone(rec.Data))
	}
	l.version++
	return nil
}

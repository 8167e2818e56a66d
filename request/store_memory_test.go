package request

import (
	"context"
	"slices"
	"sync"
)

// MemoryStore is a [Store] in one process's memory, for request's tests
// (storetest.MemoryStore is the public one, for a harness's tests) and for the
// reference of what a Store must do. Its zero value is ready to use. It
// copies what it is given and what it returns.
type MemoryStore struct {
	mu    sync.Mutex
	convs map[string]*memoryLog
}

type memoryLog struct {
	version  int64
	snapshot []byte
	deltas   [][]byte
}

// Load implements [Store].
func (m *MemoryStore) Load(ctx context.Context, id string) (Stored, error) {
	if err := ctx.Err(); err != nil {
		return Stored{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.convs[id]
	if l == nil {
		return Stored{}, nil
	}
	out := Stored{Version: l.version, Snapshot: slices.Clone(l.snapshot), Deltas: make([][]byte, len(l.deltas))}
	for i, d := range l.deltas {
		out.Deltas[i] = slices.Clone(d)
	}
	return out, nil
}

// Append implements [Store].
func (m *MemoryStore) Append(ctx context.Context, id string, version int64, rec Record) error {
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
		return &conflictError{ID: id, Version: version, Stored: l.version}
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

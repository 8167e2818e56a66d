// Package storetest checks a [request.Store] in the style of
// testing/fstest: [TestStore] checks the contract every Store must keep —
// versions, conflicts, snapshots replacing the log, byte-exact records,
// separate conversations, one winner among concurrent appends.
//
// API: [TestStore], and [MemoryStore], a Store kept in one process's memory
// for tests.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolshelf/toolshelf/request"
)

// TestStore checks the contract of [request.Store] on the store newStore
// returns (a fresh, empty one on each call): new conversations are at
// version 0, an append at the stored version succeeds and any other is a
// conflict that changes nothing, a snapshot replaces the log, records come
// back byte for byte (any bytes), conversations are separate, and of
// concurrent appends at one version exactly one succeeds.
func TestStore(t *testing.T, newStore func(t *testing.T) request.Store) {
	ctx := t.Context()
	t.Run("new conversation", func(t *testing.T) {
		sameStored(t, loadStored(ctx, t, newStore(t), "none"), 0, "")
	})
	t.Run("versioned appends", func(t *testing.T) {
		testVersionedAppends(ctx, t, newStore(t))
	})
	t.Run("snapshot replaces the log", func(t *testing.T) {
		st := newStore(t)
		steps := []request.Record{record("d1"), record("d2"), {Data: []byte("s3"), Snapshot: true}, record("d4")}
		for i, r := range steps {
			if err := st.Append(ctx, "c", int64(i), r); err != nil {
				t.Fatal(err)
			}
		}
		sameStored(t, loadStored(ctx, t, st, "c"), 4, "s3", "d4")
		if err := st.Append(ctx, "c", 4, request.Record{Data: []byte("s5"), Snapshot: true}); err != nil {
			t.Fatal(err)
		}
		sameStored(t, loadStored(ctx, t, st, "c"), 5, "s5")
	})
	t.Run("copies", func(t *testing.T) {
		st := newStore(t)
		data := []byte("original")
		if err := st.Append(ctx, "c", 0, request.Record{Data: data}); err != nil {
			t.Fatal(err)
		}
		copy(data, "CHANGED!")
		got := loadStored(ctx, t, st, "c")
		got.Deltas[0][0] = 'X'
		sameStored(t, loadStored(ctx, t, st, "c"), 1, "", "original")
	})
	t.Run("one of concurrent appends wins", func(t *testing.T) {
		testConcurrentAppends(ctx, t, newStore(t))
	})
	t.Run("canceled context", func(t *testing.T) {
		st := newStore(t)
		c, cancel := context.WithCancel(ctx)
		cancel()
		if err := st.Append(c, "c", 0, record("x")); err == nil {
			t.Fatal("Append with a canceled context succeeded")
		}
		sameStored(t, loadStored(ctx, t, st, "c"), 0, "")
	})
}

// record is a delta record holding s.
func record(s string) request.Record { return request.Record{Data: []byte(s)} }

// loadStored loads conversation id from st, failing the test on an error.
func loadStored(ctx context.Context, t *testing.T, st request.Store, id string) request.Stored {
	t.Helper()
	got, err := st.Load(ctx, id)
	if err != nil {
		t.Fatalf("Load(%q): %v", id, err)
	}
	return got
}

// sameStored fails the test unless got is at version and holds snapshot
// ("" for none) and deltas.
func sameStored(t *testing.T, got request.Stored, version int64, snapshot string, deltas ...string) {
	t.Helper()
	ok := got.Version == version && len(got.Deltas) == len(deltas) &&
		(snapshot == "" && got.Snapshot == nil || string(got.Snapshot) == snapshot)
	for i := 0; ok && i < len(deltas); i++ {
		ok = string(got.Deltas[i]) == deltas[i]
	}
	if !ok {
		t.Fatalf("stored: version %d, snapshot %q, deltas %q; want version %d, snapshot %q, deltas %q",
			got.Version, got.Snapshot, got.Deltas, version, snapshot, deltas)
	}
}

// testVersionedAppends checks that appends at the stored version succeed
// and any other is a conflict that changes nothing, on the empty store st.
func testVersionedAppends(ctx context.Context, t *testing.T, st request.Store) {
	binary := "\x00\xff\r\n\"tsr"
	for i, d := range []string{"one", binary} {
		if err := st.Append(ctx, "c", int64(i), record(d)); err != nil {
			t.Fatalf("Append at version %d: %v", i, err)
		}
	}
	sameStored(t, loadStored(ctx, t, st, "c"), 2, "", "one", binary)
	for _, v := range []int64{0, 1, 3} {
		err := st.Append(ctx, "c", v, record("stale"))
		if !errors.Is(err, request.ErrConflict) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", v)) || !strings.Contains(err.Error(), `"c"`) {
			t.Fatalf("Append at version %d of 2: got %v, want an error wrapping request.ErrConflict that names conversation %q and version %d", v, err, "c", v)
		}
	}
	sameStored(t, loadStored(ctx, t, st, "c"), 2, "", "one", binary)
	sameStored(t, loadStored(ctx, t, st, "other"), 0, "")
}

// testConcurrentAppends checks, on the empty store st, that of concurrent
// appends at one version exactly one succeeds, over five rounds.
func testConcurrentAppends(ctx context.Context, t *testing.T, st request.Store) {
	const n = 8
	for round := range int64(5) {
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = st.Append(ctx, "race", round, record(fmt.Sprintf("r%d-%d", round, i)))
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, request.ErrConflict):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d appends at one version succeeded, want 1", round, won)
		}
	}
	got := loadStored(ctx, t, st, "race")
	if got.Version != 5 || len(got.Deltas) != 5 || !bytes.HasPrefix(got.Deltas[4], []byte("r4-")) {
		t.Fatalf("after 5 rounds: version %d, deltas %q", got.Version, got.Deltas)
	}
}

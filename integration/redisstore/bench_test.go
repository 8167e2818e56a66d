package redisstore_test

import (
	"testing"

	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/storetest"
)

// BenchmarkTurnAt200 is a stateless replica building turn 201 of the
// scripted conversation (tool_search results carry whole schemas, so its
// history is large): open (load and restore) and build, without the
// commit, from redis-server on loopback and from a MemoryStore in the
// same run. stored-B is the conversation's stored log.
func BenchmarkTurnAt200(b *testing.B) {
	const n = 200
	for _, backend := range []string{"memory", "redis"} {
		b.Run(backend, func(b *testing.B) {
			var store request.Store = &storetest.MemoryStore{}
			if backend == "redis" {
				store = newStore(b)
			}
			f := newFleet(b, store, request.Anthropic, 2)
			for k := range n {
				if _, err := f.Replica(0).Serve(b.Context(), k); err != nil {
					b.Fatal(err)
				}
			}
			got, err := store.Load(b.Context(), "conv-1")
			if err != nil {
				b.Fatal(err)
			}
			size := len(got.Snapshot)
			for _, d := range got.Deltas {
				size += len(d)
			}
			b.ReportAllocs()
			for b.Loop() {
				p, err := f.Replica(1).Build(b.Context(), n)
				if err != nil {
					b.Fatal(err)
				}
				if p.Done {
					b.Fatal("the turn was stored")
				}
			}
			b.ReportMetric(float64(size), "stored-B")
		})
	}
}

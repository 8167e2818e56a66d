package request

import (
	"context"
	"fmt"
	"strings"
	"testing"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// benchTurn is turn k of the store benchmarks' conversations: a user
// question, a tool call, its result and the answer (one cycle of
// benchHistory, about 1.5 KB encoded).
func benchTurn(k int) Turn {
	id := fmt.Sprintf("call_%d", k)
	return Turn{Messages: []Message{
		userMsg(fmt.Sprintf("Question %d: %s", k, strings.Repeat("please look at the build output and explain it ", 4))),
		call(id, "Read", fmt.Sprintf(`{"file_path":"/src/pkg/file_%d.go","offset":0,"limit":200}`, k)),
		result(id, strings.Repeat("package main\n\nfunc main() {}\n", 20)),
		{Role: RoleAssistant, Text: strings.Repeat("The build fails because of a missing import. ", 8)},
	}}
}

// writeCounter counts what is appended to a store; with discard set it
// keeps nothing (the store stays where it was).
type writeCounter struct {
	Store
	discard       bool
	total, last   int
	appends, snap int
}

func (w *writeCounter) Append(ctx context.Context, id string, version int64, rec Record) error {
	w.total += len(rec.Data)
	w.last = len(rec.Data)
	w.appends++
	if rec.Snapshot {
		w.snap++
	}
	if w.discard {
		return nil
	}
	return w.Store.Append(ctx, id, version, rec)
}

// BenchmarkReplicaTurn measures turn n+1 of a conversation of n turns
// (n = 10, 100, 200) on the 400-tool catalog:
//
//   - warm: an in-process session that holds the conversation builds the
//     turn (the baseline);
//   - store: a stateless replica opens the conversation from a [Store]
//     with a [ConversationOptions.Key] (the frozen prefix from its warm
//     [Cache], the encoded history adopted), builds the turn and commits
//     it;
//   - store-unkeyed: the same without a key: the stored messages are
//     decoded, checked and encoded again to compare with the stored
//     encoding;
//   - blob: the whole-state way, RestoreSession from MarshalState, build,
//     and MarshalState again to save it (the history encoded again).
//
// written-B/turn is what the turn writes to the store; amortized-B/turn
// is every byte written over the n turns (deltas and snapshots) per turn.
func BenchmarkReplicaTurn(b *testing.B) {
	ctx := context.Background()
	snap, policy := benchCatalog(b)
	for _, n := range []int{10, 100, 200} {
		cfg := testConfig(snap, OpenAIChat, policy, NewCache())
		cfg.View = deferral.View{Tier: registry.TierFull}
		keyed := &ConversationOptions{Key: testKey}
		counted := &writeCounter{Store: &MemoryStore{}}
		plain := &MemoryStore{}
		var c *Conversation
		for _, st := range []struct {
			store Store
			opts  *ConversationOptions
		}{{plain, nil}, {counted, keyed}} {
			var err error
			if c, err = OpenConversation(ctx, st.store, "c", cfg, st.opts); err != nil {
				b.Fatal(err)
			}
			for k := range n {
				if _, err := c.Session().BuildRequest(benchTurn(k)); err != nil {
					b.Fatal(err)
				}
				if err := c.Commit(ctx, fmt.Sprint(k)); err != nil {
					b.Fatal(err)
				}
			}
		}
		var err error
		amortized := float64(counted.total) / float64(n)
		warm, next := c.Session(), benchTurn(n)
		var buf []byte
		b.Run(fmt.Sprintf("turns=%d/warm", n), func(b *testing.B) {
			base := warm.hist.mark()
			b.ReportAllocs()
			for b.Loop() {
				if buf, err = warm.AppendRequest(buf[:0], next); err != nil {
					b.Fatal(err)
				}
				warm.hist.rewind(base)
			}
		})
		for _, v := range []struct {
			name  string
			store Store
			opts  *ConversationOptions
		}{{"store", counted.Store, keyed}, {"store-unkeyed", plain, nil}} {
			b.Run(fmt.Sprintf("turns=%d/%s", n, v.name), func(b *testing.B) {
				discard := &writeCounter{Store: v.store, discard: true}
				b.ReportAllocs()
				for b.Loop() {
					r, err := OpenConversation(ctx, discard, "c", cfg, v.opts)
					if err != nil {
						b.Fatal(err)
					}
					if buf, err = r.Session().AppendRequest(buf[:0], next); err != nil {
						b.Fatal(err)
					}
					if err := r.Commit(ctx, "next"); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(discard.last), "written-B/turn")
				b.ReportMetric(amortized, "amortized-B/turn")
			})
		}
		b.Run(fmt.Sprintf("turns=%d/blob", n), func(b *testing.B) {
			blob, err := warm.MarshalState()
			if err != nil {
				b.Fatal(err)
			}
			var saved []byte
			b.ReportAllocs()
			for b.Loop() {
				r, err := RestoreSession(cfg, blob, nil)
				if err != nil {
					b.Fatal(err)
				}
				if buf, err = r.AppendRequest(buf[:0], next); err != nil {
					b.Fatal(err)
				}
				if saved, err = r.MarshalState(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(saved)), "written-B/turn")
		})
	}
}

package redisstore_test

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/integration/redisstore"
	"github.com/toolshelf/toolshelf/request"
)

// Issue 22, high 1, through Redis: "A forged delta widens the session's
// view. A record whose delta carries
// "view":{"mode":"ask","elevated":true,"tier":"full"} (or no allow list)
// replaces the harness's Config.View on OpenConversation: a tool the
// harness hid runs. Same through integration/redisstore (RPUSH of the
// forged record and INCR of the version)." A writer of the Redis forges
// the record as anyone can without the key — the format is public and
// the CRC-32C recomputable — and appends it with RPUSH and INCR: the next
// replica refuses the wider view and keeps the Config's.
func TestForgedDeltaThroughRedis(t *testing.T) {
	rdb := client(t)
	pre := prefix(t)
	store := redisstore.New(rdb, &redisstore.Options{Prefix: pre})
	f := newFleet(t, store, request.OpenAIChat, 2)
	for k := range 8 {
		_, err := f.Replica(k%2).Serve(t.Context(), k)
		require.NoError(t, err)
	}
	cfg := f.Replica(0).Config()
	cfg.RestoreElevation = false // the harness does not let elevations survive
	opts := &request.ConversationOptions{Handlers: nil}
	base := pre + "{conv-1}"

	forge := func(view map[string]any) {
		t.Helper()
		ctx := t.Context()
		v, err := rdb.Get(ctx, base+":v").Int64()
		require.NoError(t, err)
		last, err := rdb.LIndex(ctx, base+":log", -1).Bytes()
		if err == redis.Nil {
			last, err = rdb.Get(ctx, base+":snap").Bytes()
		}
		require.NoError(t, err)
		rec := forgedAfter(t, last, "conv-1", v, view)
		require.NoError(t, rdb.RPush(ctx, base+":log", rec).Err())
		require.NoError(t, rdb.Incr(ctx, base+":v").Err())
	}

	forge(map[string]any{"mode": "ask", "elevated": true, "tier": "full"})
	_, err := request.OpenConversation(t.Context(), store, "conv-1", cfg, opts)
	require.ErrorIs(t, err, request.ErrState)
	assert.Contains(t, err.Error(), "saved view")

	// The same forgery with a view no wider than the Config's is a valid
	// record: it opens, and the Config's view is the session's.
	require.NoError(t, rdb.RPop(t.Context(), base+":log").Err())
	require.NoError(t, rdb.Decr(t.Context(), base+":v").Err())
	forge(map[string]any{"mode": "ask", "elevated": true})
	c, err := request.OpenConversation(t.Context(), store, "conv-1", cfg, opts)
	require.NoError(t, err)
	assert.Equal(t, cfg.View, c.Session().View(), "the elevation did not survive")
}

// forgedAfter forges the delta that follows record prev of conversation
// id at version seq: no messages, prev's place in the encoded history and
// last role, and view — as a writer of the store would, from the record
// format (docs/replicas.md):
//
//	"tsr" 2 kind 'c' crc32c uvarint(len(id)) id uvarint(seq) uvarint(len(meta)) meta uvarint(len(msgs)) msgs encoded
func forgedAfter(t *testing.T, prev []byte, id string, seq int64, view map[string]any) []byte {
	t.Helper()
	require.Equal(t, "tsr\x02", string(prev[:4]))
	rest := prev[10:]
	part := func() []byte {
		n, k := binary.Uvarint(rest)
		require.Positive(t, k)
		p := rest[k : k+int(n)]
		rest = rest[k+int(n):]
		return p
	}
	part() // conversation
	_, k := binary.Uvarint(rest)
	rest = rest[k:]
	var pm map[string]any
	require.NoError(t, json.Unmarshal(part(), &pm))
	part() // messages
	at, _ := pm["at"].(float64)
	meta := map[string]any{
		"encoding": pm["encoding"], "at": int(at) + len(rest), "n": 0,
		"last": pm["last"], "pending": pm["pending"], "view": view,
	}
	m, err := json.Marshal(meta)
	require.NoError(t, err)
	out := []byte("tsr\x02dc\x00\x00\x00\x00")
	out = binary.AppendUvarint(out, uint64(len(id)))
	out = append(out, id...)
	out = binary.AppendUvarint(out, uint64(seq))
	out = binary.AppendUvarint(out, uint64(len(m)))
	out = append(out, m...)
	out = binary.AppendUvarint(out, 0)
	tab := crc32.MakeTable(crc32.Castagnoli)
	binary.LittleEndian.PutUint32(out[6:10], crc32.Update(crc32.Checksum(out[:6], tab), tab, out[10:]))
	return out
}

// Package redisstore keeps toolshelf conversations in Redis: a
// [request.Store] over a go-redis client, for harnesses whose replicas
// share one conversation.
//
// A conversation id lives under three keys sharing one hash tag (so they
// sit in one slot of a Redis Cluster): prefix{id}:v, the version;
// prefix{id}:snap, the latest snapshot; prefix{id}:log, a list of the
// deltas appended after it. Append is one Lua script (EVALSHA, falling
// back to EVAL): it compares the version and pushes the record — or
// replaces snapshot and log — in one atomic step, so no replica ever holds
// a lock and a replica that dies mid-turn leaves nothing behind. Load reads
// the three keys in one MULTI/EXEC transaction, a consistent view.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/toolshelf/toolshelf/request"
)

// Options configures a [Store]. A nil *Options means the defaults.
type Options struct {
	// Prefix starts every key; "" means "toolshelf:conv:".
	Prefix string
	// TTL, when positive, makes a conversation expire after TTL without
	// an append; every append renews it.
	TTL time.Duration
}

// Store is a [request.Store] in Redis. It is safe for concurrent use.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
}

var _ request.Store = (*Store)(nil)

// New returns a store over rdb, which the caller keeps and closes.
func New(rdb redis.UniversalClient, opts *Options) *Store {
	s := &Store{rdb: rdb, prefix: "toolshelf:conv:"}
	if opts != nil {
		if opts.Prefix != "" {
			s.prefix = opts.Prefix
		}
		s.ttl = opts.TTL
	}
	return s
}

// keys returns the version, snapshot and log keys of id.
func (s *Store) keys(id string) []string {
	base := s.prefix + "{" + id + "}"
	return []string{base + ":v", base + ":snap", base + ":log"}
}

// appendScript appends under an expected version. ARGV: expected
// version, record, "1" for a snapshot, TTL in milliseconds (0: none).
// It returns {1, new version} or {0, stored version}.
var appendScript = redis.NewScript(`
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v ~= tonumber(ARGV[1]) then
  return {0, v}
end
if ARGV[3] == '1' then
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('DEL', KEYS[3])
else
  redis.call('RPUSH', KEYS[3], ARGV[2])
end
redis.call('SET', KEYS[1], v + 1)
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
end
return {1, v + 1}
`)

// Append implements [request.Store].
func (s *Store) Append(ctx context.Context, id string, version int64, rec request.Record) error {
	snap := "0"
	if rec.Snapshot {
		snap = "1"
	}
	res, err := appendScript.Run(ctx, s.rdb, s.keys(id), version, rec.Data, snap, s.ttl.Milliseconds()).Int64Slice()
	if err != nil {
		return fmt.Errorf("redisstore: append to %q: %w", id, err)
	}
	if len(res) != 2 {
		return fmt.Errorf("redisstore: append to %q: script returned %v", id, res)
	}
	if res[0] != 1 {
		return fmt.Errorf("conversation %q: append at version %d, stored version is %d: %w", id, version, res[1], request.ErrConflict)
	}
	return nil
}

// Load implements [request.Store].
func (s *Store) Load(ctx context.Context, id string) (request.Stored, error) {
	k := s.keys(id)
	var v, snap *redis.StringCmd
	var log *redis.StringSliceCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		v = p.Get(ctx, k[0])
		snap = p.Get(ctx, k[1])
		log = p.LRange(ctx, k[2], 0, -1)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return request.Stored{}, fmt.Errorf("redisstore: load %q: %w", id, err)
	}
	var out request.Stored
	if err := v.Err(); err == nil {
		if out.Version, err = v.Int64(); err != nil {
			return request.Stored{}, fmt.Errorf("redisstore: load %q: version: %w", id, err)
		}
	} else if !errors.Is(err, redis.Nil) {
		return request.Stored{}, fmt.Errorf("redisstore: load %q: %w", id, err)
	}
	if b, err := snap.Bytes(); err == nil {
		out.Snapshot = b
	} else if !errors.Is(err, redis.Nil) {
		return request.Stored{}, fmt.Errorf("redisstore: load %q: %w", id, err)
	}
	for _, d := range log.Val() {
		out.Deltas = append(out.Deltas, []byte(d))
	}
	return out, nil
}

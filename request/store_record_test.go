package request

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"runtime"
	"strconv"
	"testing"

	deferral "github.com/toolshelf/toolshelf/defer"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testKey signs the keyed records of tests.
var testKey = recordKey("0123456789abcdef0123456789abcdef")

// storedScript commits the script's turns, one per record, and returns
// the records.
func storedScript(t *testing.T, p Provider) (Config, Stored) {
	t.Helper()
	return storedScriptKeyed(t, p, nil)
}

// storedScriptKeyed is storedScript with records signed with key.
func storedScriptKeyed(t *testing.T, p Provider, key recordKey) (Config, Stored) {
	t.Helper()
	reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
	cfg := testConfig(reg.Snapshot(), p, githubPolicy(), nil)
	store := &MemoryStore{}
	c, err := OpenConversation(t.Context(), store, "c", cfg, &ConversationOptions{Key: key})
	require.NoError(t, err)
	for i, tr := range script() {
		_, err := c.Session().BuildRequest(tr)
		require.NoError(t, err)
		require.NoError(t, c.Commit(t.Context(), string(rune('a'+i))))
	}
	got, err := store.Load(t.Context(), "c")
	require.NoError(t, err)
	require.Len(t, got.Deltas, len(script()))
	return cfg, got
}

// reframe parses a delta, lets edit change its parts and frames it again
// with a valid checksum, in the same place: damage (or a forgery) a
// checksum cannot see.
func reframe(t *testing.T, rec []byte, edit func(meta map[string]json.RawMessage, msgs, enc *[]byte)) []byte {
	t.Helper()
	return reframeKeyed(t, nil, rec, edit)
}

// reframeKeyed is reframe for records signed with key.
func reframeKeyed(t *testing.T, key recordKey, rec []byte, edit func(meta map[string]json.RawMessage, msgs, enc *[]byte)) []byte {
	t.Helper()
	r, err := parseRecord(rec, recordDelta, key)
	require.NoError(t, err)
	var meta map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.meta, &meta))
	msgs, enc := r.msgs, r.encoded
	edit(meta, &msgs, &enc)
	m, err := json.Marshal(meta)
	require.NoError(t, err)
	return frameRecord(key, r.at, recordDelta, m, msgs, enc)
}

// Stored state that cannot be read is ErrState at open, never a panic
// nor a body the provider would refuse.
func TestConversationBadRecords(t *testing.T) {
	cfg, good := storedScript(t, Anthropic)
	d := good.Deltas
	flipped := append([]byte(nil), d[1]...)
	flipped[len(flipped)-5] ^= 1
	badLen := append([]byte(recordMagic), recordFormat, recordDelta, recordCRC, 0, 0, 0, 0, 1, 'c', 0, 0x7f, '{', '}') // meta longer than the record
	binary.LittleEndian.PutUint32(badLen[recordHead:], crc32.Update(crc32.Checksum(badLen[:recordHead], castagnoli), castagnoli, badLen[recordHead+4:]))

	set := func(key, value string) func(map[string]json.RawMessage, *[]byte, *[]byte) {
		return func(m map[string]json.RawMessage, _, _ *[]byte) { m[key] = json.RawMessage(value) }
	}
	cases := map[string]Stored{
		"version without records": {Version: 3},
		"records at version 0":    {Deltas: d[:1]},
		"not a record":            {Version: 1, Deltas: [][]byte{[]byte(`{"messages":[]}`)}},
		"other format":            {Version: 1, Deltas: [][]byte{append([]byte("tsr\x09"), d[0][4:]...)}},
		"delta as snapshot":       {Version: 1, Snapshot: d[0]},
		"damaged byte":            {Version: 2, Deltas: [][]byte{d[0], flipped}},
		"cut short":               {Version: 2, Deltas: [][]byte{d[0], d[1][:len(d[1])-3]}},
		"length past the end":     {Version: 1, Deltas: [][]byte{badLen}},
		"meta not JSON":           {Version: 1, Deltas: [][]byte{frameRecord(nil, recordPlace{"c", 0}, recordDelta, []byte(`{"turn":"a`), nil, nil)}},
		"encoded past the end":    {Version: 2, Deltas: [][]byte{d[0], reframe(t, d[1], set("at", "99999"))}},
		"encoded not messages": {Version: 1, Deltas: [][]byte{reframe(t, d[0], func(_ map[string]json.RawMessage, _, enc *[]byte) {
			*enc = []byte(`"text"`)
		})}},
		"messages without encoding": {Version: 1, Deltas: [][]byte{reframe(t, d[0], func(_ map[string]json.RawMessage, _, enc *[]byte) {
			*enc = nil
		})}},
		"unknown role": {Version: 1, Deltas: [][]byte{reframe(t, d[0], set("last", `"system"`))}},
	}
	for name, st := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := OpenConversation(t.Context(), fixedStore(st), "c", cfg, nil)
			require.ErrorIs(t, err, ErrState)
			t.Log(err)
		})
	}

	// Without a key, messages are decoded and checked at open: a count
	// that does not match, or messages that are not JSON, are ErrState
	// there. With a key, the records are the harness's own and their
	// messages are decoded when first needed: a key holder's bug fails
	// then, as ErrState.
	for name, edit := range map[string]func(map[string]json.RawMessage, *[]byte, *[]byte){
		"count":    set("n", "2"),
		"not JSON": func(_ map[string]json.RawMessage, msgs, _ *[]byte) { *msgs = []byte(`[{"role":"user","text":"hi"}`) },
	} {
		t.Run("messages "+name, func(t *testing.T) {
			st := Stored{Version: 1, Deltas: [][]byte{reframe(t, d[0], edit)}}
			_, err := OpenConversation(t.Context(), fixedStore(st), "c", cfg, nil)
			require.ErrorIs(t, err, ErrState)

			kcfg, kgood := storedScriptKeyed(t, Anthropic, testKey)
			st = Stored{Version: 1, Deltas: [][]byte{reframeKeyed(t, testKey, kgood.Deltas[0], edit)}}
			c, err := OpenConversation(t.Context(), fixedStore(st), "c", kcfg, &ConversationOptions{Key: testKey})
			require.NoError(t, err)
			_, err = c.Session().MarshalState()
			require.ErrorIs(t, err, ErrState)
			assert.Empty(t, c.Session().Messages())
		})
	}
}

// fixedStore is a store that loads one stored log.
type fixedStore Stored

func (f fixedStore) Load(context.Context, string) (Stored, error) { return Stored(f), nil }
func (f fixedStore) Append(context.Context, string, int64, Record) error {
	return &conflictError{Stored: -1}
}

// Restoring with a key adopts the stored history: the messages stay
// undecoded until something needs them, and the next body is the unsaved
// session's.
func TestConversationAdoptsStoredHistory(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			cfg, got := storedScriptKeyed(t, p, testKey)
			c, err := OpenConversation(t.Context(), fixedStore(got), "c", cfg, &ConversationOptions{Key: testKey})
			require.NoError(t, err)
			h := &c.Session().hist
			assert.Equal(t, len(script()), len(h.stored), "one undecoded part per record")
			assert.Empty(t, h.entries)

			ref, err := NewSession(cfg)
			require.NoError(t, err)
			turns := script()
			for _, tr := range turns {
				_, err := ref.BuildRequest(tr)
				require.NoError(t, err)
			}
			next := Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("go on")}}
			want, err := ref.BuildRequest(next)
			require.NoError(t, err)
			body, err := c.Session().BuildRequest(next)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(body))
			assert.NotEmpty(t, h.stored, "building a turn decodes nothing")
			// Arguments come back compacted, as from MarshalState.
			st, err := ref.MarshalState()
			require.NoError(t, err)
			plain, err := RestoreSession(cfg, st, nil)
			require.NoError(t, err)
			assert.Equal(t, plain.Messages(), c.Session().Messages())
			assert.Empty(t, h.stored)
		})
	}
}

// FuzzStoredRecord forges records: one record with arbitrary bytes in
// every field (conversation, sequence, JSON part, messages, encoded part,
// snapshot or delta, signed or not) under a valid checksum or HMAC — what
// anyone who can write the store can do without the key, and a key
// holder's bug with it. It opens them with a restricted Config (ask mode,
// core tier) and runs Messages, BuildRequest and MarshalState: an error
// wrapping ErrState or a session that builds; never a panic, never a view
// wider than the Config's, never a loaded tool the view hides, never a
// body with a member the session did not write, and never more than
// allocBound(record) bytes allocated.
func FuzzStoredRecord(f *testing.F) {
	reg, _ := loadCatalogs(f, 0, harnessFile, githubFile)
	snap := reg.Snapshot()
	caches := map[Provider]*Cache{}
	for _, p := range providers {
		caches[p] = NewCache()
		for _, key := range []recordKey{nil, testKey} {
			cfg := testConfig(snap, p, githubPolicy(), nil)
			store := &MemoryStore{}
			c, err := OpenConversation(context.Background(), store, "c", cfg, &ConversationOptions{Key: key, CompactBytes: 1})
			require.NoError(f, err)
			for i, tr := range script()[:3] {
				_, err := c.Session().BuildRequest(tr)
				require.NoError(f, err)
				require.NoError(f, c.Commit(context.Background(), string(rune('a'+i))))
			}
			got, err := store.Load(context.Background(), "c")
			require.NoError(f, err)
			r, err := parseRecord(got.Snapshot, recordSnapshot, key)
			require.NoError(f, err)
			f.Add(string(p), true, key != nil, r.at.id, uint64(r.at.seq), r.meta, r.msgs, r.encoded)
		}
	}
	f.Fuzz(func(t *testing.T, provider string, snapshot, keyed bool, id string, seq uint64, meta, msgs, enc []byte) {
		cache := caches[Provider(provider)]
		if cache == nil || seq > 1<<40 {
			return
		}
		cfg := testConfig(snap, Provider(provider), githubPolicy(), cache)
		cfg.View = deferral.View{Mode: deferral.Mode{Name: "ask", Allow: []string{"Read", "Grep", "mcp__github__list_*"}}}
		var key recordKey
		if keyed {
			key = testKey
		}
		kind, st := byte(recordDelta), Stored{Version: int64(seq) + 1}
		if snapshot {
			kind = recordSnapshot
		}
		rec := frameRecord(key, recordPlace{id, int64(seq)}, kind, meta, msgs, enc)
		if snapshot {
			st.Snapshot = rec
		} else {
			st.Deltas = [][]byte{rec}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c, err := OpenConversation(t.Context(), fixedStore(st), id, cfg, &ConversationOptions{Key: key})
		if err != nil {
			require.ErrorIs(t, err, ErrState)
			return
		}
		s := c.Session()
		assertNoWiderView(t, s, cfg)
		_ = s.Messages()
		body, err := s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("next")}})
		if err == nil {
			assertOwnMembers(t, body, cfg)
		}
		_, _ = s.MarshalState()
		runtime.ReadMemStats(&after)
		assert.LessOrEqual(t, after.TotalAlloc-before.TotalAlloc, allocBound(len(rec)), "record of %d bytes", len(rec))
	})
}

// allocBound is what opening a record of n bytes and running Messages,
// BuildRequest and MarshalState on it may allocate: 64 bytes per byte of
// the record, plus 1 MiB for the session itself (its setup from a warm
// cache, a turn, the saved state of an empty conversation).
func allocBound(n int) uint64 { return 1<<20 + 64*uint64(n) }

// assertNoWiderView checks that a restored session sees what cfg lets it:
// cfg's view, unelevated, and loaded tools only among the tools that view
// shows.
func assertNoWiderView(t *testing.T, s *Session, cfg Config) {
	t.Helper()
	v := s.View()
	assert.Equal(t, cfg.View.Mode, v.Mode)
	assert.Equal(t, cfg.View.Tier, v.Tier)
	assert.False(t, v.Elevated)
	for _, n := range s.LoadedSet().Names() {
		_, _, ok := s.Lookup(n)
		assert.True(t, ok, "loaded %q is not a tool the view shows", n)
	}
}

// assertOwnMembers checks that body's top-level members are each written
// once, and the model is cfg's: stored bytes cannot add members.
func assertOwnMembers(t *testing.T, body []byte, cfg Config) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(body))
	tok, err := d.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		require.NoError(t, err)
		k := tok.(string)
		assert.False(t, seen[k], "member %q twice", k)
		seen[k] = true
		var v json.RawMessage
		require.NoError(t, d.Decode(&v))
		if k == "model" {
			assert.Equal(t, strconv.Quote(cfg.Model), string(v))
		}
	}
	fresh, err := NewSession(cfg)
	require.NoError(t, err)
	ref, err := fresh.BuildRequest(Turn{Messages: []Message{userMsg("hi")}})
	require.NoError(t, err)
	var want map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(ref, &want))
	for k := range seen {
		assert.Contains(t, want, k, "member %q the session does not write", k)
	}
}

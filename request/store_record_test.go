package request

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storedScript commits the script's turns, one per record, and returns
// the records.
func storedScript(t *testing.T, p Provider) (Config, Stored) {
	t.Helper()
	reg, _ := loadCatalogs(t, 0, harnessFile, githubFile)
	cfg := testConfig(reg.Snapshot(), p, githubPolicy(), nil)
	store := &MemoryStore{}
	c, err := OpenConversation(t.Context(), store, "c", cfg, nil)
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
// with a valid checksum: damage a checksum cannot see.
func reframe(t *testing.T, rec []byte, edit func(meta map[string]json.RawMessage, msgs, enc *[]byte)) []byte {
	t.Helper()
	r, err := parseRecord(rec, recordDelta)
	require.NoError(t, err)
	var meta map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.meta, &meta))
	msgs, enc := r.msgs, r.encoded
	edit(meta, &msgs, &enc)
	m, err := json.Marshal(meta)
	require.NoError(t, err)
	return frameRecord(recordDelta, m, msgs, enc)
}

// Stored state that cannot be read is ErrState at open, never a panic
// nor a body the provider would refuse.
func TestConversationBadRecords(t *testing.T) {
	cfg, good := storedScript(t, Anthropic)
	d := good.Deltas
	flipped := append([]byte(nil), d[1]...)
	flipped[len(flipped)-5] ^= 1
	badLen := append([]byte(recordMagic), recordFormat, recordDelta, 0, 0, 0, 0, 0x7f, '{', '}') // meta longer than the record
	binary.LittleEndian.PutUint32(badLen[recordHeader-4:], crc32.Checksum(badLen[recordHeader:], castagnoli))

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
		"meta not JSON":           {Version: 1, Deltas: [][]byte{frameRecord(recordDelta, []byte(`{"turn":"a`), nil, nil)}},
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

	// Messages are decoded when first needed: a count that does not
	// match, or messages that are not JSON, fail then, as ErrState.
	for name, edit := range map[string]func(map[string]json.RawMessage, *[]byte, *[]byte){
		"count":    set("n", "7"),
		"not JSON": func(_ map[string]json.RawMessage, msgs, _ *[]byte) { *msgs = []byte(`[{"role":`) },
	} {
		t.Run("messages "+name, func(t *testing.T) {
			st := Stored{Version: 1, Deltas: [][]byte{reframe(t, d[0], edit)}}
			c, err := OpenConversation(t.Context(), fixedStore(st), "c", cfg, nil)
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
	return &ConflictError{Stored: -1}
}

// Restoring adopts the stored history: the messages stay undecoded until
// something needs them, and the next body is the unsaved session's.
func TestConversationAdoptsStoredHistory(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			cfg, got := storedScript(t, p)
			c, err := OpenConversation(t.Context(), fixedStore(got), "c", cfg, nil)
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

// FuzzStoredRecord opens conversations whose one record has arbitrary
// parts under a valid checksum (damage a checksum cannot see: a writer's
// bug): an error wrapping ErrState or a session that builds, never a
// panic.
func FuzzStoredRecord(f *testing.F) {
	reg, _ := loadCatalogs(f, 0, harnessFile, githubFile)
	for _, p := range providers {
		cfg := testConfig(reg.Snapshot(), p, githubPolicy(), nil)
		store := &MemoryStore{}
		c, err := OpenConversation(context.Background(), store, "c", cfg, nil)
		require.NoError(f, err)
		for i, tr := range script()[:2] {
			_, err := c.Session().BuildRequest(tr)
			require.NoError(f, err)
			require.NoError(f, c.Commit(context.Background(), string(rune('a'+i))))
		}
		got, err := store.Load(context.Background(), "c")
		require.NoError(f, err)
		for _, d := range got.Deltas {
			r, err := parseRecord(d, recordDelta)
			require.NoError(f, err)
			f.Add(string(p), r.meta, r.msgs, r.encoded)
		}
	}
	f.Fuzz(func(t *testing.T, provider string, meta, msgs, enc []byte) {
		cfg := testConfig(reg.Snapshot(), Provider(provider), githubPolicy(), nil)
		if _, err := NewSession(cfg); err != nil {
			return
		}
		st := Stored{Version: 1, Deltas: [][]byte{frameRecord(recordDelta, meta, msgs, enc)}}
		c, err := OpenConversation(t.Context(), fixedStore(st), "c", cfg, nil)
		if err != nil {
			require.ErrorIs(t, err, ErrState)
			return
		}
		s := c.Session()
		_, _ = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "ok"}, userMsg("next")}})
		_ = s.Messages()
		_, _ = s.MarshalState()
	})
}

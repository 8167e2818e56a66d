package request

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/toolshelf/toolshelf/internal/jsonx"
)

// A record, as a [Store] keeps it:
//
//	"tsr" format kind crc32c uvarint(len(meta)) meta uvarint(len(msgs)) msgs encoded
//
// format is recordFormat; kind is 's' (snapshot: meta is a snapshotMeta,
// encoded the whole encoded history) or 'd' (delta: meta is a deltaMeta,
// encoded the bytes that replace the encoded history from meta.At on).
// crc32c (4 bytes, little-endian) is the CRC-32C of everything after it.
// msgs is the record's messages in neutral form, a JSON array (empty when
// there are none).
//
// The encoded history rides beside the neutral messages, raw, so that a
// replica adopts it instead of encoding every message again, and the
// neutral messages sit in their own part, so that a replica keeps them
// undecoded until something needs them (Messages, MarshalState, the next
// snapshot); meta carries what the next turn needs instead: the message
// count, the last role, the calls still unanswered. The neutral messages
// stay the source of truth for another provider or library.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	recordMagic    = "tsr"
	recordFormat   = 1
	recordSnapshot = 's'
	recordDelta    = 'd'
	recordHeader   = len(recordMagic) + 2 + 4
)

// tail is what a record says of the history after it.
type tail struct {
	// N is the number of messages in the record.
	N int `json:"n"`
	// Last is the role of the conversation's last message.
	Last Role `json:"last,omitempty"`
	// Pending are the calls of the last assistant message not yet
	// answered.
	Pending []string `json:"pending,omitempty"`
}

// snapshotMeta is the JSON part of a snapshot record.
type snapshotMeta struct {
	State state `json:"state"` // without its messages
	// Encoding is the provider the encoded part is encoded for.
	Encoding Provider `json:"encoding"`
	// Turn is the key of the last committed turn.
	Turn string `json:"turn,omitempty"`
	tail
}

// deltaMeta is the JSON part of a delta record: what one commit changed.
// Nil pointers are "unchanged"; the messages and self-built tools are
// appended.
type deltaMeta struct {
	Turn     string   `json:"turn,omitempty"`
	Encoding Provider `json:"encoding"`
	// At is where the encoded part goes in the encoded history: Anthropic
	// reopens the last user message to add tool results or blocks, so a
	// delta may rewrite the history's last two bytes.
	At int `json:"at"`
	tail
	Loaded    *[]string       `json:"loaded,omitempty"`
	SelfBuilt []selfBuiltTool `json:"self_built,omitempty"`
	Notes     *[]string       `json:"pending_announcements,omitempty"`
	View      *viewState      `json:"view,omitempty"`
}

func encodeRecord(kind byte, meta any, msgs []Message, encoded []byte) ([]byte, error) {
	m, err := jsonx.Marshal(meta)
	if err != nil {
		return nil, err
	}
	var ms []byte
	if len(msgs) > 0 {
		if ms, err = jsonx.Marshal(msgs); err != nil {
			return nil, err
		}
	}
	return frameRecord(kind, m, ms, encoded), nil
}

// frameRecord puts a record's parts together.
func frameRecord(kind byte, m, ms, encoded []byte) []byte {
	out := make([]byte, recordHeader, recordHeader+2*binary.MaxVarintLen64+len(m)+len(ms)+len(encoded))
	copy(out, recordMagic)
	out[len(recordMagic)], out[len(recordMagic)+1] = recordFormat, kind
	out = binary.AppendUvarint(out, uint64(len(m)))
	out = append(out, m...)
	out = binary.AppendUvarint(out, uint64(len(ms)))
	out = append(out, ms...)
	out = append(out, encoded...)
	binary.LittleEndian.PutUint32(out[recordHeader-4:], crc32.Checksum(out[recordHeader:], castagnoli))
	return out
}

// record is a parsed record.
type record struct {
	meta, msgs, encoded []byte
}

// parseRecord checks a record of the given kind and splits it into its
// parts.
func parseRecord(rec []byte, kind byte) (record, error) {
	if len(rec) < recordHeader || string(rec[:len(recordMagic)]) != recordMagic {
		return record{}, errors.New("not a toolshelf record")
	}
	if f := rec[len(recordMagic)]; f != recordFormat {
		return record{}, fmt.Errorf("record format %d, this library reads format %d", f, recordFormat)
	}
	if k := rec[len(recordMagic)+1]; k != kind {
		return record{}, fmt.Errorf("record kind %q, want %q", k, kind)
	}
	rest := rec[recordHeader:]
	if crc32.Checksum(rest, castagnoli) != binary.LittleEndian.Uint32(rec[recordHeader-4:]) {
		return record{}, errors.New("record damaged: checksum mismatch")
	}
	var r record
	for _, part := range []*[]byte{&r.meta, &r.msgs} {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return record{}, errors.New("record truncated")
		}
		*part, rest = rest[k:k+int(n)], rest[k+int(n):]
	}
	r.encoded = rest
	return r, nil
}

// storedHistory is a history as a [Store] kept it, for one provider.
type storedHistory struct {
	buf  []byte
	msgs [][]byte // JSON arrays, undecoded
	tail          // N is the number of messages in all of msgs
}

// replayed is a conversation rebuilt from its stored log.
type replayed struct {
	st   state
	turn string
	// hist is the stored history for the provider asked for, or nil when
	// some record was encoded for another one: st.Messages then holds the
	// messages, to encode again.
	hist *storedHistory
}

// replay rebuilds the state a stored log describes, for provider p.
func replay(p Provider, got Stored) (replayed, error) {
	r := replayed{st: state{Version: stateVersion}}
	h := &storedHistory{}
	reuse := true
	size := len(got.Snapshot)
	for _, d := range got.Deltas {
		size += len(d)
	}
	h.buf = make([]byte, 0, size)
	if got.Snapshot != nil {
		rec, err := parseRecord(got.Snapshot, recordSnapshot)
		if err != nil {
			return r, fmt.Errorf("snapshot: %w", err)
		}
		var sm snapshotMeta
		if err := json.Unmarshal(rec.meta, &sm); err != nil {
			return r, fmt.Errorf("snapshot: %w", err)
		}
		if sm.State.Version != stateVersion {
			return r, fmt.Errorf("snapshot: state version %d, this library reads version %d", sm.State.Version, stateVersion)
		}
		r.st, r.turn = sm.State, sm.Turn
		reuse = sm.Encoding == p
		h.buf = append(h.buf, rec.encoded...)
		h.add(rec.msgs, sm.tail)
	}
	for i, d := range got.Deltas {
		rec, err := parseRecord(d, recordDelta)
		if err != nil {
			return r, fmt.Errorf("delta %d: %w", i, err)
		}
		var dm deltaMeta
		if err := json.Unmarshal(rec.meta, &dm); err != nil {
			return r, fmt.Errorf("delta %d: %w", i, err)
		}
		if dm.Encoding != p {
			reuse = false
		}
		if reuse {
			if dm.At < 0 || dm.At > len(h.buf) {
				return r, fmt.Errorf("delta %d: at %d outside the encoded history of %d bytes", i, dm.At, len(h.buf))
			}
			h.buf = append(h.buf[:dm.At], rec.encoded...)
		}
		h.add(rec.msgs, dm.tail)
		st := &r.st
		st.SelfBuilt = append(st.SelfBuilt, dm.SelfBuilt...)
		if dm.Loaded != nil {
			st.Loaded = *dm.Loaded
		}
		if dm.Notes != nil {
			st.Notes = *dm.Notes
		}
		if dm.View != nil {
			st.View = *dm.View
		}
		r.turn = dm.Turn
	}
	if reuse {
		r.hist = h
		return r, nil
	}
	// Encoded for another provider: decode the messages to encode them
	// again.
	var err error
	if r.st.Messages, err = decodeStored(r.st.Messages, h.msgs); err != nil {
		return r, err
	}
	if len(r.st.Messages) != h.N {
		return r, fmt.Errorf("%d messages stored, the records count %d", len(r.st.Messages), h.N)
	}
	return r, nil
}

// decodeStored appends the messages of stored JSON arrays to dst.
func decodeStored(dst []Message, stored [][]byte) ([]Message, error) {
	for _, m := range stored {
		var part []Message
		if err := json.Unmarshal(m, &part); err != nil {
			return dst, err
		}
		dst = append(dst, part...)
	}
	return dst, nil
}

// add appends a record's messages and takes its tail.
func (h *storedHistory) add(msgs []byte, t tail) {
	if len(msgs) > 0 {
		h.msgs = append(h.msgs, msgs)
	}
	n := h.N + t.N
	h.tail, h.N = t, n
}

// adopt takes a stored history as the whole history, without decoding its
// messages or encoding them again.
func (h *history) adopt(sh *storedHistory) error {
	buf := sh.buf
	if (sh.N == 0) != (len(buf) == 0) {
		return errors.New("the encoded history does not match the messages")
	}
	// The records' checksums vouch for the bytes; what the body is built
	// around must still be a list of messages in the provider's shape.
	if len(buf) > 0 && (buf[0] != '{' || buf[len(buf)-1] != '}' || !h.enc.historyShaped(buf)) {
		return errors.New("the encoded history is not a list of messages")
	}
	switch sh.Last {
	case "", RoleUser, RoleAssistant, RoleTool:
	default:
		return fmt.Errorf("unknown role %q", sh.Last)
	}
	h.buf, h.stored, h.nStored = buf, sh.msgs, sh.N
	h.entries = nil
	h.last, h.pending = sh.Last, append(h.pending[:0], sh.Pending...)
	return nil
}

// count returns the number of messages in the history.
func (h *history) count() int { return h.nDropped + h.nStored + len(h.entries) }

// since returns the messages after the first n (n >= nStored).
func (h *history) since(n int) []Message { return h.entries[n-h.nStored:] }

// tail returns what a record says of the history.
func (h *history) tail(n int) tail {
	return tail{N: n, Last: h.last, Pending: slices.Clone(h.pending)}
}

// all decodes the stored messages, if any, and returns every message;
// none once they were dropped.
func (h *history) all() ([]Message, error) {
	if h.dropped || h.stored == nil {
		return h.entries, nil
	}
	msgs, err := decodeStored(make([]Message, 0, h.nStored+len(h.entries)), h.stored)
	if err != nil {
		return h.entries, fmt.Errorf("stored messages: %w", err)
	}
	if len(msgs) != h.nStored {
		return h.entries, fmt.Errorf("%d messages stored, the records count %d", len(msgs), h.nStored)
	}
	h.entries = append(msgs, h.entries...)
	h.stored, h.nStored = nil, 0
	return h.entries, nil
}

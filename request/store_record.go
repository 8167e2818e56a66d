package request

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/toolshelf/toolshelf/internal/jsonx"
)

// A record, as a [Store] keeps it, is a header, a JSON part and the
// encoded history part:
//
//	"tsr" format kind uvarint(len(meta)) meta encoded
//
// format is recordFormat; kind is 's' (snapshot: meta is a snapshotMeta,
// encoded the whole encoded history) or 'd' (delta: meta is a deltaMeta,
// encoded the bytes that replace the encoded history from meta.At on).
// The encoded history rides beside the neutral messages, raw, so that a
// replica adopts it instead of encoding every message again; the neutral
// messages stay the source of truth for another provider or library.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	recordMagic    = "tsr"
	recordFormat   = 1
	recordSnapshot = 's'
	recordDelta    = 'd'
)

// snapshotMeta is the JSON part of a snapshot record.
type snapshotMeta struct {
	State state `json:"state"`
	// Encoding is the provider the encoded part is encoded for.
	Encoding Provider `json:"encoding"`
	// Sum is the CRC-32C of the encoded part.
	Sum uint32 `json:"crc32c"`
	// Turn is the key of the last committed turn.
	Turn string `json:"turn,omitempty"`
}

// deltaMeta is the JSON part of a delta record: what one commit changed.
// Nil pointers are "unchanged"; the messages and self-built tools are
// appended.
type deltaMeta struct {
	Turn     string   `json:"turn,omitempty"`
	Encoding Provider `json:"encoding"`
	// Sum is the CRC-32C of the encoded part: the part goes into request
	// bodies unparsed, so a damaged one must not get that far.
	Sum uint32 `json:"crc32c"`
	// At is where the encoded part goes in the encoded history: Anthropic
	// reopens the last user message to add tool results or blocks, so a
	// delta may rewrite the history's last two bytes.
	At        int             `json:"at"`
	Messages  []Message       `json:"messages,omitempty"`
	Loaded    *[]string       `json:"loaded,omitempty"`
	SelfBuilt []selfBuiltTool `json:"self_built,omitempty"`
	Notes     *[]string       `json:"pending_announcements,omitempty"`
	View      *viewState      `json:"view,omitempty"`
}

func encodeRecord(kind byte, meta any, encoded []byte) ([]byte, error) {
	m, err := jsonx.Marshal(meta)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(recordMagic)+2+binary.MaxVarintLen64+len(m)+len(encoded))
	out = append(out, recordMagic...)
	out = append(out, recordFormat, kind)
	out = binary.AppendUvarint(out, uint64(len(m)))
	out = append(out, m...)
	return append(out, encoded...), nil
}

// parseRecord splits a record of the given kind into its parts.
func parseRecord(rec []byte, kind byte) (meta, encoded []byte, err error) {
	if len(rec) < len(recordMagic)+2 || string(rec[:len(recordMagic)]) != recordMagic {
		return nil, nil, errors.New("not a toolshelf record")
	}
	rest := rec[len(recordMagic):]
	if rest[0] != recordFormat {
		return nil, nil, fmt.Errorf("record format %d, this library reads format %d", rest[0], recordFormat)
	}
	if rest[1] != kind {
		return nil, nil, fmt.Errorf("record kind %q, want %q", rest[1], kind)
	}
	rest = rest[2:]
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)-k) {
		return nil, nil, errors.New("record truncated")
	}
	rest = rest[k:]
	return rest[:n], rest[n:], nil
}

// replayed is a conversation rebuilt from its stored log.
type replayed struct {
	st   state
	turn string
	// encoded is the encoded history for the provider asked for, or nil
	// when some record was encoded for another one: the messages must be
	// encoded again.
	encoded []byte
}

// replay rebuilds the state a stored log describes, for provider p.
func replay(p Provider, got Stored) (replayed, error) {
	r := replayed{st: state{Version: stateVersion}}
	reuse := true
	size := len(got.Snapshot)
	for _, d := range got.Deltas {
		size += len(d)
	}
	enc := make([]byte, 0, size)
	if got.Snapshot != nil {
		meta, e, err := parseRecord(got.Snapshot, recordSnapshot)
		if err != nil {
			return r, fmt.Errorf("snapshot: %w", err)
		}
		var sm snapshotMeta
		if err := json.Unmarshal(meta, &sm); err != nil {
			return r, fmt.Errorf("snapshot: %w", err)
		}
		if sm.State.Version != stateVersion {
			return r, fmt.Errorf("snapshot: state version %d, this library reads version %d", sm.State.Version, stateVersion)
		}
		if crc32.Checksum(e, castagnoli) != sm.Sum {
			return r, errors.New("snapshot: the encoded history does not match its checksum")
		}
		r.st, r.turn = sm.State, sm.Turn
		reuse = sm.Encoding == p
		enc = append(enc, e...)
	}
	for i, d := range got.Deltas {
		meta, e, err := parseRecord(d, recordDelta)
		if err != nil {
			return r, fmt.Errorf("delta %d: %w", i, err)
		}
		var dm deltaMeta
		if err := json.Unmarshal(meta, &dm); err != nil {
			return r, fmt.Errorf("delta %d: %w", i, err)
		}
		if crc32.Checksum(e, castagnoli) != dm.Sum {
			return r, fmt.Errorf("delta %d: the encoded history does not match its checksum", i)
		}
		if dm.Encoding != p {
			reuse = false
		}
		if reuse {
			if dm.At < 0 || dm.At > len(enc) {
				return r, fmt.Errorf("delta %d: at %d outside the encoded history of %d bytes", i, dm.At, len(enc))
			}
			enc = append(enc[:dm.At], e...)
		}
		st := &r.st
		st.Messages = append(st.Messages, dm.Messages...)
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
		r.encoded = enc
	}
	return r, nil
}

// adopt takes checked messages and their encoding, as a [Store] kept
// them, without encoding the messages again.
func (h *history) adopt(msgs []Message, buf []byte) error {
	if (len(msgs) == 0) != (len(buf) == 0) {
		return errors.New("the encoded history does not match the messages")
	}
	// The records' checksums vouch for the bytes; what the body is built
	// around must still be a list of messages in the provider's shape.
	if len(buf) > 0 && (buf[0] != '{' || buf[len(buf)-1] != '}' || (h.provider == Anthropic && !bytes.HasSuffix(buf, []byte("}]}")))) {
		return errors.New("the encoded history is not a list of messages")
	}
	h.entries, h.buf = msgs, buf
	for i := range msgs {
		h.follow(&msgs[i])
	}
	return nil
}

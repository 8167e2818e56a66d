package request

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// A record, as a [Store] keeps it:
//
//	"tsr" format kind alg sum uvarint(len(id)) id uvarint(seq) uvarint(len(meta)) meta uvarint(len(msgs)) msgs encoded
//
// format is recordFormat; kind is 's' (snapshot: meta is a snapshotMeta,
// encoded the whole encoded history) or 'd' (delta: meta is a deltaMeta,
// encoded the bytes that replace the encoded history from meta.At on).
// alg is 'c' (sum is the CRC-32C of the record without it, 4 bytes,
// little-endian) or 'h' (sum is the HMAC-SHA-256 of the same bytes under
// [ConversationOptions.Key], 32 bytes). id is the conversation's ID and
// seq the version the record was appended at: under the sum, so that a
// record copied into another conversation, appended twice or moved is
// refused. msgs is the record's messages in neutral form, a JSON array
// (empty when there are none).
//
// The encoded history rides beside the neutral messages, raw, so that a
// replica adopts it instead of encoding every message again, and the
// neutral messages sit in their own part, so that a replica keeps them
// undecoded until something needs them (Messages, MarshalState, the next
// snapshot); meta carries what the next turn needs instead: the message
// count, the last role, the calls still unanswered. The neutral messages
// stay the source of truth: a replica without the key cannot tell its own
// records from a forger's, so it decodes them, checks them as new
// messages and refuses records whose encoded part differs from their
// encoding (see openRecords).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	recordMagic    = "tsr"
	recordFormat   = 2 // 1: no conversation, sequence or key (refused)
	recordSnapshot = 's'
	recordDelta    = 'd'
	recordCRC      = 'c'
	recordHMAC     = 'h'
	recordHead     = len(recordMagic) + 3 // magic, format, kind, alg
)

// sumSize returns the size of the sum of alg.
func sumSize(alg byte) int {
	if alg == recordHMAC {
		return sha256.Size
	}
	return 4
}

// recordKey is what signs and checks records: nil for the CRC-32C.
type recordKey []byte

func (k recordKey) alg() byte {
	if k == nil {
		return recordCRC
	}
	return recordHMAC
}

// sum appends the sum of head and rest to dst.
func (k recordKey) sum(dst, head, rest []byte) []byte {
	if k == nil {
		c := crc32.Update(crc32.Checksum(head, castagnoli), castagnoli, rest)
		return binary.LittleEndian.AppendUint32(dst, c)
	}
	m := hmac.New(sha256.New, k)
	m.Write(head)
	m.Write(rest)
	return m.Sum(dst)
}

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
	Notes     *[]noteState    `json:"pending_announcements,omitempty"`
	View      *viewState      `json:"view,omitempty"`
	PrevReply *string         `json:"previous_reply_id,omitempty"`
	// SentPrefix is the digest chain of the prefix sent (sendcheck.go),
	// in the first record that holds one.
	SentPrefix *[]string `json:"sent_prefix,omitempty"`
}

// recordPlace is where a record belongs: its conversation and the version
// it is appended at.
type recordPlace struct {
	id  string
	seq int64
}

func encodeRecord(key recordKey, at recordPlace, kind byte, meta any, msgs []Message, encoded []byte) ([]byte, error) {
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
	return frameRecord(key, at, kind, m, ms, encoded), nil
}

// frameRecord puts a record's parts together.
func frameRecord(key recordKey, at recordPlace, kind byte, m, ms, encoded []byte) []byte {
	alg := key.alg()
	body := recordHead + sumSize(alg)
	out := make([]byte, body, body+4*binary.MaxVarintLen64+len(at.id)+len(m)+len(ms)+len(encoded))
	copy(out, recordMagic)
	out[len(recordMagic)], out[len(recordMagic)+1], out[len(recordMagic)+2] = recordFormat, kind, alg
	out = binary.AppendUvarint(out, uint64(len(at.id)))
	out = append(out, at.id...)
	out = binary.AppendUvarint(out, uint64(at.seq))
	out = binary.AppendUvarint(out, uint64(len(m)))
	out = append(out, m...)
	out = binary.AppendUvarint(out, uint64(len(ms)))
	out = append(out, ms...)
	out = append(out, encoded...)
	key.sum(out[recordHead:recordHead], out[:recordHead], out[body:])
	return out
}

// record is a parsed record.
type record struct {
	at                  recordPlace
	meta, msgs, encoded []byte
}

// parseRecord checks a record of the given kind, signed with key, and
// splits it into its parts.
func parseRecord(rec []byte, kind byte, key recordKey) (record, error) {
	if len(rec) < recordHead || string(rec[:len(recordMagic)]) != recordMagic {
		return record{}, errors.New("not a toolshelf record")
	}
	if f := rec[len(recordMagic)]; f != recordFormat {
		return record{}, fmt.Errorf("record format %d, this library reads format %d (records of format 1 are refused: reset the conversation)", f, recordFormat)
	}
	if k := rec[len(recordMagic)+1]; k != kind {
		return record{}, fmt.Errorf("record kind %q, want %q", k, kind)
	}
	switch alg := rec[len(recordMagic)+2]; {
	case alg == key.alg():
	case alg == recordHMAC:
		return record{}, errors.New("record signed with a key: open the conversation with ConversationOptions.Key")
	case alg == recordCRC:
		return record{}, errors.New("record not signed: ConversationOptions.Key is set, and every record must carry its HMAC")
	default:
		return record{}, fmt.Errorf("record checksum %q unknown", alg)
	}
	body := recordHead + sumSize(key.alg())
	if len(rec) < body {
		return record{}, errors.New("record truncated")
	}
	rest := rec[body:]
	var buf [sha256.Size]byte
	if !hmac.Equal(key.sum(buf[:0], rec[:recordHead], rest), rec[recordHead:body]) {
		if key != nil {
			return record{}, errors.New("record forged or damaged: HMAC mismatch")
		}
		return record{}, errors.New("record damaged: checksum mismatch")
	}
	var r record
	id, rest, ok := cutPart(rest)
	seq, k := binary.Uvarint(rest)
	if !ok || k <= 0 || seq > math.MaxInt64 {
		return record{}, errors.New("record truncated")
	}
	r.at, rest = recordPlace{id: string(id), seq: int64(seq)}, rest[k:]
	if r.meta, rest, ok = cutPart(rest); !ok {
		return record{}, errors.New("record truncated")
	}
	if r.msgs, rest, ok = cutPart(rest); !ok {
		return record{}, errors.New("record truncated")
	}
	r.encoded = rest
	return r, nil
}

// cutPart splits a length-prefixed part off b.
func cutPart(b []byte) (part, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, b, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// storedHistory is a history as a [Store] kept it, for one provider.
type storedHistory struct {
	buf  []byte
	msgs [][]byte // JSON arrays, undecoded
	tail          // N is the number of messages in all of msgs
}

// minNeutralMessage is the size of the smallest message in neutral form,
// {"role":"user"}: a record's count of messages is at most the size of its
// message part over it, so that no count costs more than a small multiple
// of the bytes that carry it (a Message is 128 bytes on 64-bit machines:
// at most 8.6 bytes allocated per byte of the message part).
const minNeutralMessage = len(`{"role":"user"}`)

// replayed is a conversation rebuilt from its stored log.
type replayed struct {
	st   state
	turn string
	// hist is the stored history to adopt as it is, undecoded: only
	// records signed with the key, all encoded for the provider asked
	// for. Otherwise it is nil and st.Messages holds the messages, to
	// check and encode again.
	hist *storedHistory
	// encoded is the encoded history as the records hold it, when they
	// were all encoded for the provider but could not be adopted
	// unchecked (no key): the encoding of st.Messages must equal it.
	encoded *storedHistory
}

// replay rebuilds the state a stored log describes, for provider p, from
// the records of conversation id signed with key.
func replay(p Provider, id string, key recordKey, got Stored) (replayed, error) {
	l := logReader{p: p, id: id, key: key, same: true, r: replayed{st: state{Version: stateVersion}}}
	size, n := len(got.Snapshot), len(got.Deltas)
	for _, d := range got.Deltas {
		size += len(d)
	}
	if got.Snapshot != nil {
		n++
	}
	// The records are the last n appends: record j was appended at
	// version first+j, and a log without a snapshot starts at 0.
	first := got.Version - int64(n)
	if first < 0 || (got.Snapshot == nil && first != 0) {
		return l.r, fmt.Errorf("version %d does not fit a log of %d records", got.Version, n)
	}
	l.h.buf = make([]byte, 0, size)
	if got.Snapshot != nil {
		if err := l.snapshot(got.Snapshot, first); err != nil {
			return l.r, fmt.Errorf("snapshot: %w", err)
		}
		first++
	}
	for i, d := range got.Deltas {
		if err := l.delta(d, first+int64(i)); err != nil {
			return l.r, fmt.Errorf("delta %d: %w", i, err)
		}
	}
	return l.finish()
}

// logReader reads a stored log, record after record.
type logReader struct {
	p    Provider
	id   string
	key  recordKey
	r    replayed
	h    storedHistory
	same bool // every record so far is encoded for p
}

// open checks a record of the given kind and its place: appended to this
// conversation at version seq.
func (l *logReader) open(data []byte, kind byte, seq int64) (record, error) {
	rec, err := parseRecord(data, kind, l.key)
	if err != nil {
		return rec, err
	}
	if rec.at.id != l.id {
		return rec, fmt.Errorf("record of conversation %.80q, not this one", rec.at.id)
	}
	if rec.at.seq != seq {
		return rec, fmt.Errorf("record appended at version %d found at version %d: replayed, duplicated or moved", rec.at.seq, seq)
	}
	return rec, nil
}

func (l *logReader) snapshot(data []byte, seq int64) error {
	rec, err := l.open(data, recordSnapshot, seq)
	if err != nil {
		return err
	}
	var sm snapshotMeta
	if err := json.Unmarshal(rec.meta, &sm); err != nil {
		return err
	}
	if sm.State.Version != stateVersion {
		return fmt.Errorf("state version %d, this library reads version %d", sm.State.Version, stateVersion)
	}
	if len(sm.State.Messages) > 0 || sm.State.Encoded != nil {
		return errors.New("the state holds messages; they belong in the record's message part")
	}
	l.r.st, l.r.turn = sm.State, sm.Turn
	l.same = sm.Encoding == l.p
	l.h.buf = append(l.h.buf, rec.encoded...)
	return l.h.add(rec.msgs, sm.tail)
}

func (l *logReader) delta(data []byte, seq int64) error {
	rec, err := l.open(data, recordDelta, seq)
	if err != nil {
		return err
	}
	var dm deltaMeta
	if err := json.Unmarshal(rec.meta, &dm); err != nil {
		return err
	}
	if dm.Encoding != l.p {
		l.same = false
	}
	if l.same {
		if dm.At < 0 || dm.At > len(l.h.buf) {
			return fmt.Errorf("at %d outside the encoded history of %d bytes", dm.At, len(l.h.buf))
		}
		l.h.buf = append(l.h.buf[:dm.At], rec.encoded...)
	}
	if err := l.h.add(rec.msgs, dm.tail); err != nil {
		return err
	}
	l.r.st.apply(&dm)
	l.r.turn = dm.Turn
	return nil
}

// finish returns the replayed conversation: the stored history to adopt,
// when the records are signed and all encoded for the provider, or else
// the decoded messages, to check and encode again.
func (l *logReader) finish() (replayed, error) {
	r, h := l.r, &l.h
	if l.same && l.key != nil {
		r.hist = h
		return r, nil
	}
	var err error
	if r.st.Messages, err = decodeStored(r.st.Messages, h.msgs); err != nil {
		return r, err
	}
	if len(r.st.Messages) != h.N {
		return r, fmt.Errorf("%d messages stored, the records count %d", len(r.st.Messages), h.N)
	}
	if l.same {
		r.encoded = h
	}
	return r, nil
}

// apply takes what a delta changed into the state.
func (st *state) apply(dm *deltaMeta) {
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
	if dm.PrevReply != nil {
		st.PreviousReply = *dm.PrevReply
	}
	if dm.SentPrefix != nil {
		if st.Sent == nil {
			st.Sent = &sentState{}
		}
		st.Sent.Prefix, st.Sent.Provider = *dm.SentPrefix, dm.Encoding
	}
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

// add appends a record's messages and takes its tail, whose count must
// fit the bytes of msgs.
func (h *storedHistory) add(msgs []byte, t tail) error {
	if t.N < 0 || t.N > len(msgs)/minNeutralMessage {
		return fmt.Errorf("a count of %d messages in a message part of %d bytes", t.N, len(msgs))
	}
	if len(msgs) > 0 {
		h.msgs = append(h.msgs, msgs)
	}
	n := h.N + t.N
	h.tail, h.N = t, n
	return nil
}

// adopt takes a stored history as the whole history, without decoding its
// messages or encoding them again.
func (h *history) adopt(sh *storedHistory) error {
	buf := sh.buf
	if (sh.N == 0) != (len(buf) == 0) {
		return errors.New("the encoded history does not match the messages")
	}
	// The records' HMACs vouch for the bytes; what the body is built
	// around must still be exactly a list of messages in the provider's
	// shape, as for an encoded history MarshalState saved.
	if err := checkEncodedHistory(h.enc, buf, sh.N, sh.Last, sh.Pending); err != nil {
		return err
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

// agrees checks a history rebuilt from the neutral messages of a stored
// log against the encoded history the same records hold: the neutral
// form is what Messages, MarshalState and hooks see, the encoded one what
// the provider reads, and a record whose parts tell two stories is
// refused.
func (h *history) agrees(sh *storedHistory) error {
	if !bytes.Equal(h.buf, sh.buf) {
		return errors.New("the encoded history is not the encoding of the stored messages")
	}
	if h.last != sh.Last || !slices.Equal(h.pending, sh.Pending) {
		return errors.New("the records' last role or pending calls do not fit the stored messages")
	}
	return nil
}

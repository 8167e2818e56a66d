package request

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// minKey is the shortest [ConversationOptions.Key] accepted.
const minKey = 16

// defaultCompactBytes is [ConversationOptions.CompactBytes]'s default.
const defaultCompactBytes = 64 << 10

// ConversationOptions configures [OpenConversation]. A nil
// *ConversationOptions means the defaults.
type ConversationOptions struct {
	// Handlers gives self-built tools their handlers back by name, as in
	// [RestoreSession].
	Handlers map[string]registry.Handler
	// CompactBytes bounds the log: a commit writes a snapshot of the
	// whole conversation instead of a delta once the deltas since the
	// last snapshot would add up to more than both the snapshot and
	// CompactBytes. Snapshots thus come at doubling sizes, and every
	// byte of the conversation is written about three times in all,
	// however long it grows. 0 means 64 KiB.
	CompactBytes int
	// Key, when set, signs every record with HMAC-SHA-256 under it
	// instead of a CRC-32C, and refuses records without a valid HMAC: for
	// a harness whose store others can write (a shared Redis, a leaked
	// password). A writer of the store without the key can then only
	// delete records, roll a whole conversation back to an earlier state
	// of its own, or move a conversation's log whole: it cannot forge,
	// edit, reorder or transplant a record (see docs/replicas.md). With
	// a key, records are adopted as the harness wrote them, their
	// messages decoded only when needed; without one, every record's
	// messages are decoded and checked as new at open, and an encoded
	// part that is not their encoding is refused. Use 32 random bytes
	// (fewer than 16 is an error wrapping [ErrConfig]); every replica
	// needs the same key.
	Key []byte
}

// Conversation is a [Session] bound to its place in a [Store]. Serving a
// turn on any replica is: open the conversation (the state comes from the
// store, the frozen prefix from the replica's [Cache]), run the tool calls
// and build the request on [Conversation.Session] as usual, then
// [Conversation.Commit] the turn before sending the body. A commit writes
// only what the turn changed.
//
// If Commit reports [ErrConflict], another replica committed first: open
// the conversation again and serve the turn on the newer state — unless
// [Conversation.LastTurn] shows the other commit was this very turn (a
// double submit), whose body is then the reopened session's
// BuildRequest(Turn{}). A process that dies before Commit leaves nothing:
// its turn was never stored, and the next replica serves it.
//
// A Conversation is not safe for concurrent use; one replica serves one
// turn with it and drops it.
type Conversation struct {
	store   Store
	id      string
	key     recordKey
	s       *Session
	compact int
	version int64
	stale   bool
	// reencoded: the stored encoding was another provider's, so the next
	// commit writes a snapshot in this one's.
	reencoded bool
	base      committed
}

// committed is what the store holds of the session, to diff a turn
// against.
type committed struct {
	turn                string
	entries, bufLen     int
	last2               []byte // the encoded history's last two bytes
	loaded              []string
	selfBuilt           int
	live                int      // Session.liveGen: a Sync change writes a whole record
	notes               []string // the blocks, as sent
	view                viewState
	prevReply           string
	snapBytes, logBytes int
	// sent reports whether the store holds the digest chain of the
	// prefix; rewrites is Session.rewrites (a declared rewrite writes a
	// whole record, with the new chain).
	sent     bool
	rewrites int
}

// OpenConversation loads conversation id from store and restores its
// session with cfg, or creates the session if the conversation is new.
// opts may be nil. The stored state is data, read as if new, as in
// [RestoreSession]: cfg.View decides what the session sees. Every record
// must name conversation id and the version it was appended at (a record
// copied from another conversation, appended twice or moved is refused)
// and carry a valid checksum, or HMAC with [ConversationOptions.Key].
// Stored state that cannot be read is an error wrapping [ErrState]; a
// store failure is wrapped as it is.
//
// The next commit stores the session's view when it differs from the
// stored one. A harness that narrows a stored conversation's view thus
// opens it with the Config it was served with, calls [Session.SetView]
// and commits; a Config narrower than the stored view is refused as a
// stored view wider than the Config would be.
func OpenConversation(ctx context.Context, store Store, id string, cfg Config, opts *ConversationOptions) (*Conversation, error) {
	if opts == nil {
		opts = &ConversationOptions{}
	}
	if cfg.DropMessages {
		return nil, fmt.Errorf("%w: Config.DropMessages: a Conversation stores the messages", ErrConfig)
	}
	got, err := store.Load(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("request: load conversation %q: %w", id, err)
	}
	c := &Conversation{store: store, id: id, compact: opts.CompactBytes, version: got.Version}
	if opts.Key != nil {
		if len(opts.Key) < minKey {
			return nil, fmt.Errorf("%w: ConversationOptions.Key has %d bytes: use at least %d random bytes (32 recommended)", ErrConfig, len(opts.Key), minKey)
		}
		c.key = recordKey(slices.Clone(opts.Key))
	}
	if c.compact <= 0 {
		c.compact = defaultCompactBytes
	}
	empty := got.Snapshot == nil && len(got.Deltas) == 0
	if empty != (got.Version == 0) {
		return nil, fmt.Errorf("%w: conversation %q: version %d with %d records", ErrState, id, got.Version, len(got.Deltas))
	}
	if empty {
		if c.s, err = NewSession(cfg); err != nil {
			return nil, err
		}
		c.base = committed{}
		return c, nil
	}
	r, err := replay(cfg.Provider, id, c.key, got)
	if err != nil {
		return nil, fmt.Errorf("%w: conversation %q: %w", ErrState, id, err)
	}
	if c.s, err = restoreState(ctx, cfg, &r.st, opts.Handlers, r.hist); err != nil {
		return nil, fmt.Errorf("conversation %q: %w", id, err)
	}
	if r.encoded != nil {
		if err := c.s.hist.agrees(r.encoded); err != nil {
			return nil, fmt.Errorf("%w: conversation %q: %w", ErrState, id, err)
		}
	}
	c.reencoded = r.hist == nil && r.encoded == nil
	c.s.mu.Lock()
	c.base = c.capture(r.turn)
	c.s.mu.Unlock()
	// The store holds the stored view, which the Config may have
	// narrowed or left an elevation out of: the next commit writes the
	// session's, so that the store follows the Config.
	c.base.view = r.st.View
	c.base.sent = r.st.Sent != nil
	c.base.snapBytes = len(got.Snapshot)
	for _, d := range got.Deltas {
		c.base.logBytes += len(d)
	}
	return c, nil
}

// Session returns the conversation's session.
func (c *Conversation) Session() *Session { return c.s }

// Version returns the stored version the session is at: the number of
// commits so far.
func (c *Conversation) Version() int64 { return c.version }

// LastTurn returns the key of the last committed turn ("" if none).
func (c *Conversation) LastTurn() string { return c.base.turn }

// Commit appends what the session changed since it was opened or last
// committed — new messages with their encoding, loaded and self-built
// tools, announcements, the view — under the version it was built on, and
// records turn as [Conversation.LastTurn]. Now and then it writes a
// snapshot instead (see [ConversationOptions.CompactBytes]).
//
// If another replica committed first, Commit returns the store's error
// wrapping [ErrConflict] and the Conversation is spent: open it again.
// On any other error the outcome is unknown (the store may have applied
// the append): open the conversation again and compare LastTurn.
func (c *Conversation) Commit(ctx context.Context, turn string) error {
	if c.stale {
		return &conflictError{ID: c.id, Version: c.version, Stored: -1}
	}
	rec, next, err := c.record(turn)
	if err != nil {
		return fmt.Errorf("request: commit to conversation %q: %w", c.id, err)
	}
	if err := c.store.Append(ctx, c.id, c.version, rec); err != nil {
		c.stale = true
		if errors.Is(err, ErrConflict) {
			return err
		}
		return fmt.Errorf("request: append to conversation %q at version %d (outcome unknown: open it again and compare LastTurn): %w", c.id, c.version, err)
	}
	c.version++
	c.base = next
	c.reencoded = false
	return nil
}

// record builds the turn's record and what the store will hold after it.
func (c *Conversation) record(turn string) (Record, committed, error) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	b, h := &c.base, &s.hist
	next := c.capture(turn)
	if h.dropped {
		return Record{}, next, fmt.Errorf("%w: the session dropped its messages (Config.DropMessages), and a Conversation stores them: keep them in a session a Store holds", ErrConfig)
	}
	next.snapBytes, next.logBytes = b.snapBytes, b.logBytes
	whole := c.reencoded || h.count() < b.entries || h.nStored > b.entries || len(h.buf) < b.bufLen || len(s.tools.selfBuilt) < b.selfBuilt || next.live != b.live || next.rewrites != b.rewrites
	next.sent = true
	if !whole {
		at := b.bufLen
		if at >= 2 && !bytes.Equal(h.buf[at-2:at], b.last2) {
			at -= 2 // Anthropic reopened the last user message
		}
		msgs := h.since(b.entries)
		dm := deltaMeta{Turn: turn, Encoding: s.cfg.Provider, At: at, tail: h.tail(len(msgs))}
		if !slices.Equal(next.loaded, b.loaded) {
			dm.Loaded = &next.loaded
		}
		dm.SelfBuilt = savedTools(s.tools.selfBuilt[b.selfBuilt:])
		if !slices.Equal(next.notes, b.notes) {
			notes := notesData(s.notes)
			dm.Notes = &notes
		}
		if next.prevReply != b.prevReply {
			dm.PrevReply = &next.prevReply
		}
		if !equalView(next.view, b.view) {
			dm.View = &next.view
		}
		if !b.sent {
			ch, err := chainOf(s.frozen.sent(), nil)
			if err != nil {
				return Record{}, next, err
			}
			dm.SentPrefix = &ch.Prefix
		}
		data, err := encodeRecord(c.key, recordPlace{c.id, c.version}, recordDelta, dm, msgs, h.buf[at:])
		if err != nil {
			return Record{}, next, err
		}
		if b.logBytes+len(data) <= max(b.snapBytes, c.compact) {
			next.logBytes += len(data)
			return Record{Data: data}, next, nil
		}
	}
	st, err := s.saved()
	if err != nil {
		return Record{}, next, err
	}
	msgs := st.Messages
	st.Messages = nil
	data, err := encodeRecord(c.key, recordPlace{c.id, c.version}, recordSnapshot, snapshotMeta{State: st, Encoding: s.cfg.Provider, Turn: turn, tail: h.tail(len(msgs))}, msgs, h.buf)
	if err != nil {
		return Record{}, next, err
	}
	next.snapBytes, next.logBytes = len(data), 0
	return Record{Data: data, Snapshot: true}, next, nil
}

// capture returns what the store holds once the session's current state
// is committed as turn. s.mu must be held.
func (c *Conversation) capture(turn string) committed {
	s := c.s
	h := &s.hist
	b := committed{
		turn: turn, entries: h.count(), bufLen: len(h.buf),
		last2:     slices.Clone(h.buf[max(0, len(h.buf)-2):]),
		loaded:    s.tools.loadedNames(),
		selfBuilt: len(s.tools.selfBuilt),
		live:      s.tools.liveGen(),
		notes:     notesText(s.notes),
		view:      viewOf(s.view),
		prevReply: s.log.prevReply,
		rewrites:  s.rewrites,
	}
	return b
}

func viewOf(v deferral.View) viewState {
	return viewState{Mode: v.Mode.Name, Allow: slices.Clone(v.Mode.Allow), ReadOnly: v.Mode.ReadOnly, Tier: v.Tier, Elevated: v.Elevated}
}

func equalView(a, b viewState) bool {
	return a.Mode == b.Mode && slices.Equal(a.Allow, b.Allow) && a.ReadOnly == b.ReadOnly && a.Tier == b.Tier && a.Elevated == b.Elevated
}

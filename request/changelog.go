package request

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	deferral "github.com/toolshelf/toolshelf/defer"
)

// ChangeKind names an event of a session's change log: something that
// changes, or may change, what the provider must read again.
type ChangeKind string

// The kinds of [Change]. The session records the first four itself; the
// harness declares the others with [Session.Declare], since they happen
// outside the session (a compaction or a model switch starts a new
// session, an edit of history is made to the messages the harness keeps).
const (
	// ChangeView is a [Session.SetView]: a mode, tier or elevation change.
	ChangeView ChangeKind = "view"
	// ChangeArrived is a [Session.Sync] that adopted tools of a server
	// (a late server, a reconnect): announced append-only.
	ChangeArrived ChangeKind = "arrived"
	// ChangeUpdated is a tool's definition that changed: taken by Sync or
	// by [Session.ApproveChange], announced append-only.
	ChangeUpdated ChangeKind = "updated"
	// ChangeRemoved is a Sync that saw tools leave: announced append-only.
	ChangeRemoved ChangeKind = "removed"
	// ChangeCompaction is a compaction the harness declared: the history
	// was summarised or cut, so the provider reads it anew.
	ChangeCompaction ChangeKind = "compaction"
	// ChangeHistoryEdit is another edit of earlier messages the harness
	// declared.
	ChangeHistoryEdit ChangeKind = "history_edit"
	// ChangeModel is a model switch the harness declared (the session
	// also sees one when the model of its requests differs).
	ChangeModel ChangeKind = "model"
	// ChangeSettings is a change of request settings the harness declared
	// (thinking, tool_choice, service tier ...).
	ChangeSettings ChangeKind = "settings"
)

// Change is one entry of a session's change log.
type Change struct {
	// Turn is the number of requests the session had built when the
	// change happened: it first shows in request Turn+1.
	Turn int `json:"turn"`
	// Kind is what changed.
	Kind ChangeKind `json:"kind"`
	// Detail names it for a reader: "SetView(agent)", "server late: 3
	// tools arrived (mcp__late__sum …)", the harness's own words for a
	// declared change.
	Detail string `json:"detail"`
	// Prefix reports that the change altered bytes the provider had
	// already read (system, tools[], settings or earlier messages): the
	// next request cannot read them from the cache. An announcement
	// appended to the conversation does not.
	Prefix bool `json:"prefix"`
}

// SentRequest describes one request a session built: the facts a cache
// miss is explained by.
type SentRequest struct {
	// Session is Config.ID.
	Session string `json:"session,omitempty"`
	// Turn numbers the session's requests from 1.
	Turn int `json:"turn"`
	// At is when it was built ([Config.Clock]).
	At time.Time `json:"at"`
	// Provider and Model are the session's.
	Provider Provider `json:"provider"`
	Model    string   `json:"model"`
	// Prefix is the SHA-256 of the encoded prefix (model, settings,
	// system and tools[]), in hex: equal on two requests when the provider
	// read the same prefix.
	Prefix string `json:"prefix_sha256"`
	// Settings is the SHA-256 of Config.Extra, in hex.
	Settings string `json:"settings_sha256"`
	// HistoryBytes is the length of the encoded messages sent.
	HistoryBytes int `json:"history_bytes"`
	// Compared is the reply id the request named for the provider's
	// cache diagnosis ([Config.Diagnostics]); empty when none.
	Compared string `json:"compared_reply_id,omitempty"`
}

// ChangeLog is a copy of a session's change log.
type ChangeLog struct {
	// Requests is the number of requests the session built.
	Requests int `json:"requests"`
	// Last is the last of them (zero before the first).
	Last SentRequest `json:"last"`
	// Changes are the changes recorded so far, in order.
	Changes []Change `json:"changes,omitempty"`
}

// maxChanges bounds the log: past it the oldest half is dropped (a
// session that changes its view on every turn keeps its recent history).
const maxChanges = 4096

// maxChangeDetail bounds a change's detail, in bytes.
const maxChangeDetail = 512

// changeLog is the session's record of what it sent and what changed.
type changeLog struct {
	turns     int
	last      SentRequest
	changes   []Change
	prevReply string // the last reply id the harness passed back

	prefixOf  *frozenPrefix // the prefix prefixSum was computed for
	prefixSum string
	settings  string
}

// add records a change before the next request.
func (l *changeLog) add(kind ChangeKind, detail string, prefix bool) {
	if len(detail) > maxChangeDetail {
		detail = strings.ToValidUTF8(detail[:maxChangeDetail], "") + "…"
	}
	if len(l.changes) >= maxChanges {
		l.changes = slices.Delete(l.changes, 0, maxChanges/2)
	}
	l.changes = append(l.changes, Change{Turn: l.turns, Kind: kind, Detail: detail, Prefix: prefix})
}

// sent records a request just built: s.mu must be held. It allocates
// nothing on a steady turn (the prefix digest is computed once per
// prefix).
func (s *Session) sent(msgs []Message) {
	l := &s.log
	if id, ok := lastReplyID(msgs); ok {
		if !validReplyID(id) {
			id = "" // a reply's id is data: one that cannot be sent back is none
		}
		l.prevReply = id
	}
	if l.prefixOf != s.frozen {
		sum := sha256.Sum256(s.frozen.prefix)
		l.prefixOf, l.prefixSum = s.frozen, hex.EncodeToString(sum[:])
	}
	if l.settings == "" {
		l.settings = settingsSum(s.cfg.Extra)
	}
	l.turns++
	compared := ""
	if s.cfg.Diagnostics {
		compared = l.prevReply
	}
	l.last = SentRequest{Session: s.cfg.ID, Turn: l.turns, At: s.now(), Provider: s.cfg.Provider, Model: s.cfg.Model,
		Prefix: l.prefixSum, Settings: l.settings, HistoryBytes: len(s.hist.buf), Compared: compared}
}

// now reads the session's clock.
func (s *Session) now() time.Time {
	if s.cfg.Clock != nil {
		return s.cfg.Clock()
	}
	return time.Now()
}

// settingsSum digests the extra fields, sorted by key.
func settingsSum(extra map[string]json.RawMessage) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		fmt.Fprintf(h, "%q:%s\n", k, bytes.TrimSpace(extra[k]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ChangeLog returns a copy of the session's change log: how many
// requests it built, the last one, and every change recorded since it
// started (bounded: the oldest go first past 4,096). A ledger that
// follows the session ([budget.Ledger]) reads it to explain cache misses.
func (s *Session) ChangeLog() ChangeLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ChangeLog{Requests: s.log.turns, Last: s.log.last, Changes: slices.Clone(s.log.changes)}
}

// Declare records in the session's change log a change the session cannot
// see: a compaction ([ChangeCompaction]), an edit of history
// ([ChangeHistoryEdit]), a model switch ([ChangeModel]) or a settings
// change ([ChangeSettings]) the harness made — typically on the session
// that continues the conversation, before its first request. detail is the
// harness's description (at most 512 bytes kept). Kinds the session
// records itself, and an invalid detail, are errors wrapping [ErrConfig].
func (s *Session) Declare(kind ChangeKind, detail string) error {
	switch kind {
	case ChangeCompaction, ChangeHistoryEdit, ChangeModel, ChangeSettings:
	default:
		return fmt.Errorf("%w: Declare(%q): the session records its own view and tool changes; declare %q, %q, %q or %q", ErrConfig, kind, ChangeCompaction, ChangeHistoryEdit, ChangeModel, ChangeSettings)
	}
	if !utf8.ValidString(detail) {
		return fmt.Errorf("%w: Declare(%q): detail is not valid UTF-8", ErrConfig, kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.add(kind, detail, true)
	if kind == ChangeCompaction || kind == ChangeHistoryEdit {
		s.allowRewrite() // the send check takes the declared change
	}
	return nil
}

// logView records a view change from f to the session's current prefix.
// s.mu must be held.
func (s *Session) logView(old *frozenPrefix, v deferral.View) {
	s.log.add(ChangeView, "SetView("+viewName(v)+")", !bytes.Equal(old.prefix, s.frozen.prefix))
}

// viewName names a view for the log: its mode, tier and elevation.
func viewName(v deferral.View) string {
	parts := []string{}
	if v.Mode.Name != "" {
		parts = append(parts, v.Mode.Name)
	}
	if v.Tier != "" {
		parts = append(parts, "tier "+string(v.Tier))
	}
	if v.Elevated {
		parts = append(parts, "elevated")
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, ", ")
}

// logTools records what a Sync or an approval adopted. s.mu must be held.
func (s *Session) logTools(c ToolsChange, how string) {
	for _, e := range []struct {
		kind  ChangeKind
		names []string
		verb  string
	}{{ChangeArrived, c.Added, "arrived"}, {ChangeUpdated, c.Changed, "changed"}, {ChangeRemoved, c.Removed, "left"}} {
		if len(e.names) == 0 {
			continue
		}
		d := fmt.Sprintf("%s: %d tools %s (%s)", how, len(e.names), e.verb, strings.Join(e.names[:min(3, len(e.names))], ", "))
		if len(e.names) > 3 {
			d = d[:len(d)-1] + ", …)"
		}
		s.log.add(e.kind, d, false) // announced append-only: the prefix stays
	}
}

package budget

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/request"
)

// MissCause is the typed cause of a cache miss: a harness alerts on it.
type MissCause string

// The causes a [Ledger] gives a cache miss.
const (
	// CauseView: a view change (Session.SetView) changed the prefix.
	CauseView MissCause = "view_changed"
	// CauseTools: the tools[] the provider read changed with a tool
	// change the session made (an arrival, update or removal that moved
	// the prefix).
	CauseTools MissCause = "tools_changed"
	// CauseCompaction: the harness declared a compaction.
	CauseCompaction MissCause = "compaction"
	// CauseHistoryEdit: the harness declared an edit of earlier messages.
	CauseHistoryEdit MissCause = "history_edited"
	// CauseOutside: the provider saw a change the session did not make:
	// the body was edited outside the session (or the conversation moved to
	// a session that did not resend it), and nothing was declared.
	CauseOutside MissCause = "changed_outside_session"
	// CauseModel: the model changed.
	CauseModel MissCause = "model_changed"
	// CauseSettings: the request settings changed (Config.Extra, or a
	// setting the provider names: service tier, reasoning effort ...).
	CauseSettings MissCause = "settings_changed"
	// CauseExpired: more time passed since the previous request than the
	// cache keeps an entry.
	CauseExpired MissCause = "expired"
	// CauseUnavailable: the provider could not diagnose the request
	// ("unavailable") and the session's log explains nothing.
	CauseUnavailable MissCause = "provider_unavailable"
	// CauseNotFound: the provider had no record of the reply the request
	// named, and the session's log explains nothing.
	CauseNotFound MissCause = "previous_not_found"
	// CauseUnknown: no known cause: the session changed nothing, no
	// lifetime passed, and the provider gave no reason.
	CauseUnknown MissCause = "unknown"
)

// CacheMiss explains one request whose cache read fell short of what the
// previous request wrote and read.
type CacheMiss struct {
	// Turn is the ledger line (request) that missed.
	Turn int `json:"turn"`
	// Missed is the tokens not read from the cache: the provider's own
	// estimate when it sent one, else the shortfall against the previous
	// request's cache read and write.
	Missed int `json:"missed_tokens"`
	// Cause is the typed cause.
	Cause MissCause `json:"cause"`
	// Provider is the provider's reason, as it sent it ("" without a
	// diagnosis).
	Provider string `json:"provider_reason,omitempty"`
	// Changes are the session's log entries that explain the miss, their
	// Turn counted in ledger lines (a change at turn 6 first shows in
	// line 7), across the sessions the ledger followed.
	Changes []request.Change `json:"changes,omitempty"`
	// Since is the time since the previous request; TTL the cache lifetime
	// it was compared with (0: unknown).
	Since time.Duration `json:"since_ns,omitempty"`
	TTL   time.Duration `json:"ttl_ns,omitempty"`
	// Text says it in one line: "turn 7: 11,480 tokens not read from cache
	// — tools changed: SetView(agent) at turn 6".
	Text string `json:"text"`
}

// LedgerOptions configure a ledger that follows a session ([FollowSession]).
type LedgerOptions struct {
	// Counter counts the session's account (nil: the estimate).
	Counter *Counter
	// TTL is how long the provider keeps a cache entry; 0 means its
	// documented default ([DefaultTTL]).
	TTL time.Duration
	// Tolerance is the shortfall, in tokens, below which a cache read is
	// not a miss; 0 means 128 (OpenAI caches in steps of 128 tokens).
	Tolerance int
	// Observer, when set, receives an [execute.EventCacheMiss] for each
	// miss: Session the session's Config.ID, Detail the miss's text.
	Observer execute.Observer
}

// DefaultTTL is the documented lifetime of provider p's prompt cache entry
// for a session's settings (0 where none is documented):
//
//   - Anthropic: 5 minutes, the default cache_control lifetime the
//     session's breakpoints use (1 hour takes "ttl": "1h", which the
//     encoder does not write).
//   - OpenAI (both APIs): 24 hours, prompt_cache_retention's default for
//     organizations without zero data retention and the only value from
//     gpt-5.5 on; 5 minutes when Config.Extra sets "in_memory" (kept 5 to
//     10 minutes of inactivity).
//   - Gemini: none documented for implicit caching ("send requests with
//     similar prefix in a short amount of time"): set LedgerOptions.TTL.
func DefaultTTL(p request.Provider, extra map[string]string) time.Duration {
	switch p {
	case request.Anthropic:
		return 5 * time.Minute
	case request.OpenAIChat, request.OpenAIResponses:
		if strings.Contains(extra["prompt_cache_retention"], "in_memory") {
			return 5 * time.Minute
		}
		return 24 * time.Hour
	}
	return 0
}

// reasonClass groups the providers' words by what they say changed.
func reasonClass(reason string) MissCause {
	switch reason {
	case "model_changed":
		return CauseModel
	case "system_changed", "tools_changed":
		return CauseTools
	case "messages_changed", "input_changed", "context_compacted":
		return CauseHistoryEdit
	case "prompt_cache_key_changed", "text_format_changed", "reasoning_effort_changed", "verbosity_changed", "service_tier_changed":
		return CauseSettings
	case "previous_message_not_found", "comparison_response_not_found":
		return CauseNotFound
	case "unavailable":
		return CauseUnavailable
	}
	return "" // none, a hit, or a word not documented
}

// evidence is what the session's log says about one request.
type evidence struct {
	prev, cur   request.SentRequest
	changes     []request.Change // those between the two requests
	newSession  bool             // the conversation moved to another session
	ttl         time.Duration
	since       time.Duration
	expired     bool
	model       bool
	settings    bool
	prefixMoved bool // the session's own prefix digest changed
}

// inferred returns the log's own cause and the entries behind it, by
// precedence: a declared compaction or edit, a model or settings change,
// a change that moved the prefix, an expiry.
func (e *evidence) inferred() (MissCause, []request.Change) {
	for _, k := range []request.ChangeKind{request.ChangeCompaction, request.ChangeHistoryEdit} {
		if c := e.of(k); c != nil {
			return causeOf(k), c
		}
	}
	if e.model || e.of(request.ChangeModel) != nil {
		return CauseModel, e.of(request.ChangeModel)
	}
	if e.settings || e.of(request.ChangeSettings) != nil {
		return CauseSettings, e.of(request.ChangeSettings)
	}
	var moved []request.Change
	for _, c := range e.changes {
		if c.Prefix {
			moved = append(moved, c)
		}
	}
	if len(moved) > 0 {
		if moved[0].Kind == request.ChangeView {
			return CauseView, moved
		}
		return CauseTools, moved
	}
	if e.prefixMoved {
		// A prefix that differs with nothing logged: the session that
		// continues the conversation was made with other inputs.
		return CauseTools, []request.Change{{Turn: e.prev.Turn, Kind: request.ChangeUpdated, Prefix: true,
			Detail: "the session's system or tools[] differ from the previous request's"}}
	}
	if e.expired {
		return CauseExpired, nil
	}
	return "", nil
}

func (e *evidence) of(k request.ChangeKind) []request.Change {
	var out []request.Change
	for _, c := range e.changes {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

func causeOf(k request.ChangeKind) MissCause {
	switch k {
	case request.ChangeCompaction:
		return CauseCompaction
	case request.ChangeHistoryEdit:
		return CauseHistoryEdit
	case request.ChangeModel:
		return CauseModel
	case request.ChangeSettings:
		return CauseSettings
	case request.ChangeView:
		return CauseView
	}
	return CauseTools
}

// attribute gives the miss of line turn its cause: the provider's reason
// cross-checked with the log, or the log's own inference.
func attribute(turn, missed int, d *request.CacheDiagnosis, e *evidence) CacheMiss {
	m := CacheMiss{Turn: turn, Missed: missed, Since: e.since, TTL: e.ttl}
	if d != nil {
		m.Provider = d.Reason
		if d.MissedTokens > 0 {
			m.Missed = d.MissedTokens
		}
	}
	head := fmt.Sprintf("turn %d: %s tokens not read from cache — ", turn, textfmt.Thousands(m.Missed))
	logCause, entries := e.inferred()
	said := reasonClass(m.Provider)
	switch {
	case said == "" || said == CauseUnavailable || said == CauseNotFound:
		// No structural diagnosis: the log decides.
		m.Cause, m.Changes = logCause, entries
		if m.Cause == "" {
			m.Cause = CauseUnknown
			if said != "" {
				m.Cause = said
			}
		}
	case agrees(said, logCause):
		m.Cause, m.Changes = logCause, entries
	default:
		// The provider saw a change the session's log does not hold.
		m.Cause = CauseOutside
	}
	m.Text = head + m.sentence(e, said)
	return m
}

// agrees reports whether the provider's class of change matches the log's
// cause.
func agrees(said, logCause MissCause) bool {
	switch said {
	case CauseModel:
		return logCause == CauseModel
	case CauseTools:
		return logCause == CauseTools || logCause == CauseView
	case CauseHistoryEdit:
		return logCause == CauseCompaction || logCause == CauseHistoryEdit
	case CauseSettings:
		return logCause == CauseSettings
	}
	return false
}

// sentence words the cause, naming the log's entries and the provider.
func (m *CacheMiss) sentence(e *evidence, said MissCause) string {
	provider := ""
	if m.Provider != "" {
		provider = "provider says " + m.Provider + "; "
	}
	entries := make([]string, 0, len(m.Changes))
	for _, c := range m.Changes {
		entries = append(entries, fmt.Sprintf("%s at turn %d", c.Detail, c.Turn))
	}
	what := strings.Join(entries, "; ")
	switch m.Cause {
	case CauseView:
		return provider + "tools changed: " + what
	case CauseTools:
		return provider + "tools changed: " + what
	case CauseCompaction:
		return provider + "compaction declared by the harness: " + what
	case CauseHistoryEdit:
		return provider + "history edited, declared by the harness: " + what
	case CauseModel:
		if what == "" {
			what = fmt.Sprintf("%s at turn %d, %s now", e.prev.Model, e.prev.Turn, e.cur.Model)
		}
		return provider + "model changed: " + what
	case CauseSettings:
		if what == "" {
			what = "Config.Extra differs from the previous request's"
		}
		return provider + "settings changed: " + what
	case CauseExpired:
		return fmt.Sprintf("%sexpired — %s since turn %d (TTL %s)", provider, duration(m.Since), e.prev.Turn, duration(m.TTL))
	case CauseOutside:
		return fmt.Sprintf("provider says %s, but %s: %s", m.Provider, unchanged(said, e), outsideWho(said, e))
	case CauseUnavailable:
		return fmt.Sprintf("the provider could not diagnose it (unavailable), and the session changed nothing since turn %d", e.prev.Turn)
	case CauseNotFound:
		return fmt.Sprintf("the provider has no record of the reply the request named (%s), and the session changed nothing since turn %d", m.Provider, e.prev.Turn)
	}
	gap := ""
	if m.TTL == 0 {
		gap = fmt.Sprintf(", %s since it and no documented cache lifetime (set LedgerOptions.TTL)", duration(m.Since))
	}
	return fmt.Sprintf("no known cause: the session changed nothing since turn %d%s, and the provider gave no reason", e.prev.Turn, gap)
}

// unchanged says what the session sent the same.
func unchanged(said MissCause, e *evidence) string {
	switch said {
	case CauseHistoryEdit:
		return fmt.Sprintf("the session sent turn %d's messages unchanged", e.prev.Turn)
	case CauseModel:
		return fmt.Sprintf("the session sent model %s both times", e.cur.Model)
	case CauseSettings:
		return "the session sent the same settings both times"
	}
	return fmt.Sprintf("the session's system and tools[] were byte-identical to turn %d's", e.prev.Turn)
}

func outsideWho(said MissCause, e *evidence) string {
	if e.newSession {
		return "the conversation moved to another session and nothing was declared (Session.Declare)"
	}
	if said == CauseHistoryEdit {
		return "the harness edited history outside the session"
	}
	return "the harness changed the request outside the session"
}

// duration writes d as "7 min 12 s", "1 h", "40 s".
func duration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var parts []string
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%d min", m))
	}
	if s > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d s", s))
	}
	return strings.Join(parts, " ")
}

// emit reports a miss to the observer.
func (o *LedgerOptions) emit(session string, m CacheMiss) {
	if o.Observer != nil {
		o.Observer.Event(context.Background(), execute.Event{Kind: execute.EventCacheMiss, Session: session, Detail: m.Text})
	}
}

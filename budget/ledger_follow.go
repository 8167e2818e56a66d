package budget

import (
	"fmt"

	"github.com/toolshelf/toolshelf/request"
)

// follower is what a ledger that follows a session keeps: the session,
// the options, what the account was last taken at, and the previous
// request for the comparison of the next.
type follower struct {
	s    *request.Session
	opts LedgerOptions
	// changes and announced are the session's log length and the count
	// of its sent announcements when the account was last taken.
	changes, announced int
	// seen counts the log entries already given to a request.
	seen int
	prev *request.SentRequest
	// moved: Follow switched sessions since the last line.
	moved bool
	// base is the ledger line before the followed session's first
	// request (its requests are lines base+1 ...); prevBase the previous
	// request's session's.
	base, prevBase int
}

// FollowSession returns a ledger that follows session s: each line's
// counterfactual uses the session's account as it is when the line is
// added — tools that arrived or left after a Sync, the announcements
// sent — without the harness taking the account again, and a line whose
// cache read fell short of what the previous request wrote and read gets
// a [CacheMiss]: the provider's diagnosis ([request.Config.Diagnostics])
// cross-checked with the session's [request.ChangeLog], or the log's own
// inference where the provider sends none. Add each reply's usage in the
// order of the requests. opts may be nil.
func FollowSession(s *request.Session, opts *LedgerOptions) (*Ledger, error) {
	if s == nil {
		return nil, fmt.Errorf("budget: FollowSession: nil session")
	}
	f := &follower{s: s}
	if opts != nil {
		f.opts = *opts
	}
	if f.opts.Tolerance <= 0 {
		f.opts.Tolerance = 128
	}
	a, err := AccountFor(s, f.opts.Counter)
	if err != nil {
		return nil, err
	}
	l := NewLedger(a)
	f.changes, f.announced = f.state()
	l.follow = f
	return l, nil
}

// Follow makes s the session the ledger follows from the next line on:
// the conversation continues in s (after a compaction, a model switch, a
// restore). Its first request is compared with the previous session's
// last; declare what the harness changed on s ([request.Session.Declare])
// before its first request. On a ledger not made by [FollowSession] it
// reports an error.
func (l *Ledger) Follow(s *request.Session) error {
	if l.follow == nil || s == nil {
		return fmt.Errorf("budget: Follow: the ledger follows no session (make it with FollowSession) or s is nil")
	}
	f := l.follow
	f.s, f.seen, f.moved = s, 0, true
	f.base = len(l.turns)
	f.changes, f.announced = -1, -1 // take the new session's account
	return nil
}

// state returns the session's log length and sent announcements.
func (f *follower) state() (int, int) {
	_, _, announced := f.s.LiveTools()
	return len(f.s.ChangeLog().Changes), len(announced)
}

// account takes the session's account again when its tools or
// announcements changed since it was last taken.
func (f *follower) account(l *Ledger) {
	changes, announced := f.state()
	if changes == f.changes && announced == f.announced {
		return
	}
	a, err := AccountFor(f.s, f.opts.Counter)
	if err != nil {
		return // the account stays as it was: the line's delta says which
	}
	l.SetAccount(a)
	f.changes, f.announced = changes, announced
}

// attribute returns the miss of line t, or nil, and remembers the request.
func (f *follower) attribute(l *Ledger, t LedgerTurn) *CacheMiss {
	log := f.s.ChangeLog()
	cur := log.Last
	if f.seen > len(log.Changes) {
		f.seen = 0 // the log dropped its oldest entries
	}
	var changes []request.Change
	for _, c := range log.Changes[f.seen:] {
		if c.Turn >= cur.Turn {
			break // after this request: the next one's
		}
		changes = append(changes, c)
		f.seen++
	}
	prev, moved, prevBase := f.prev, f.moved, f.prevBase
	f.prev, f.moved, f.prevBase = &cur, false, f.base
	// The miss names turns by ledger line.
	for i := range changes {
		changes[i].Turn += f.base
	}
	if prev == nil || len(l.turns) == 0 {
		return nil
	}
	last := l.turns[len(l.turns)-1]
	expected := last.CacheReadTokens + last.CacheWriteTokens
	short := expected - t.CacheReadTokens
	if short <= f.opts.Tolerance {
		return nil
	}
	e := &evidence{prev: *prev, cur: cur, changes: changes, newSession: moved,
		since: cur.At.Sub(prev.At), ttl: f.opts.TTL,
		model: prev.Model != cur.Model, settings: prev.Settings != cur.Settings, prefixMoved: prev.Prefix != cur.Prefix}
	if e.ttl == 0 {
		e.ttl = DefaultTTL(cur.Provider, nil)
	}
	e.expired = e.ttl > 0 && e.since > e.ttl
	e.prev.Turn += prevBase
	if e.model && e.of(request.ChangeModel) == nil {
		e.changes = append(e.changes, request.Change{Turn: e.prev.Turn, Kind: request.ChangeModel, Prefix: true,
			Detail: fmt.Sprintf("model %s → %s", prev.Model, cur.Model)})
	}
	m := attribute(t.Turn, short, t.Usage.Diagnosis, e)
	f.opts.emit(cur.Session, m)
	return &m
}

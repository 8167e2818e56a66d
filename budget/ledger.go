package budget

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/request"
)

// Ledger is the usage ledger of one session: the provider's own token
// counts, turn by turn and in total, next to what the same turns would
// have taken with every tool resident.
//
// The counterfactual is computed, not measured: each request's input as
// the provider counted it, plus the resident delta, the tokens by which
// the tools section with every tool resident exceeds the deferred one (the
// deferred tools' definitions, minus the index of their names and the
// entry tools tool_search and defer_execute that replace them). The delta
// is counted by the session's own [Account] with its [Counter], on the
// same text the requests carry, and is exact only where the counter's
// encoding is the provider's (the account's Tokens.Estimate says when it is not).
// Where a turn read the prefix from the cache, the resident tools, which
// belong to the prefix, would have been read from it too.
//
// A Ledger is not safe for concurrent use.
type Ledger struct {
	delta    int
	estimate bool
	encoding Encoding
	turns    []LedgerTurn
	follow   *follower // the session followed (ledger_follow.go), or nil
}

// LedgerTurn is one request's line of the ledger.
type LedgerTurn struct {
	// Turn numbers the requests from 1; 0 in a total.
	Turn int `json:"turn,omitempty"`
	// Usage are the provider's counts (summed, in a total).
	request.Usage
	// HitRatio is CacheReadTokens over InputTokens: the share of the
	// input served from the prefix cache (0 without input).
	HitRatio float64 `json:"hit_ratio"`
	// ResidentInput is the counterfactual input: InputTokens plus the
	// ledger's ResidentDelta (per request).
	ResidentInput int `json:"all_resident_input_tokens"`
	// ResidentCacheRead is the counterfactual cache read: CacheReadTokens
	// plus ResidentDelta on a turn that read from the cache, unchanged on
	// one that did not.
	ResidentCacheRead int `json:"all_resident_cache_read_tokens"`
	// Saved is ResidentInput − InputTokens: the input tokens deferral saved.
	Saved int `json:"saved_input_tokens"`
	// Delta is the resident delta this line used (the account's saving
	// when it was added); in a total, 0.
	Delta int `json:"resident_delta,omitempty"`
	// Miss explains a cache read that fell short of what the previous
	// request wrote and read, on a ledger that follows a session
	// ([FollowSession]); nil otherwise.
	Miss *CacheMiss `json:"cache_miss,omitempty"`
}

// NewLedger returns an empty ledger whose counterfactual comes from the
// session's savings account: ResidentDelta is
// a.Tokens.NetSavingAfterEntry, counted with a.Tokens.Encoding. A nil
// account means no counterfactual (a delta of 0).
func NewLedger(a *Account) *Ledger {
	l := &Ledger{}
	if a != nil {
		l.delta = a.Tokens.NetSavingAfterEntry
		l.estimate = a.Tokens.Estimate
		l.encoding = a.Tokens.Encoding
	}
	return l
}

// SetAccount makes a the account of the lines added from now on: their
// counterfactual uses its saving. Take the session's account again
// ([AccountFor]) after a Sync changed its tools and pass it here, so that
// the ledger follows the live set (tools that arrived or left, the
// announcements they cost); the lines already added keep theirs. A nil
// account means a delta of 0.
func (l *Ledger) SetAccount(a *Account) {
	n := NewLedger(a)
	l.delta = n.delta
	l.estimate = l.estimate || n.estimate
	if a != nil {
		l.encoding = n.encoding
	}
}

// Add records one request's usage and returns its line. On a ledger that
// follows a session ([FollowSession]) the line uses the session's account
// as it is now (tools that arrived or left, announcements sent), and a
// cache miss gets its cause.
func (l *Ledger) Add(u request.Usage) LedgerTurn {
	if l.follow != nil {
		l.follow.account(l)
	}
	t := line(u, l.delta, 1)
	if u.CacheReadTokens > 0 {
		t.ResidentCacheRead += l.delta
	}
	t.Turn = len(l.turns) + 1
	t.Delta = l.delta
	if l.follow != nil {
		t.Miss = l.follow.attribute(l, t)
	}
	l.turns = append(l.turns, t)
	return t
}

// line computes a ledger line for usage u over n requests.
func line(u request.Usage, delta, n int) LedgerTurn {
	t := LedgerTurn{Usage: u, ResidentInput: u.InputTokens + delta*n, ResidentCacheRead: u.CacheReadTokens, Saved: delta * n}
	if u.InputTokens > 0 {
		t.HitRatio = float64(u.CacheReadTokens) / float64(u.InputTokens)
	}
	return t
}

// Turns returns the lines recorded so far, in order.
func (l *Ledger) Turns() []LedgerTurn { return append([]LedgerTurn(nil), l.turns...) }

// Total sums the lines: the provider's counts, the hit ratio of all the
// input, and the counterfactual over every request.
func (l *Ledger) Total() LedgerTurn {
	var u request.Usage
	read, saved := 0, 0
	for _, t := range l.turns {
		saved += t.Saved
		u.InputTokens += t.InputTokens
		u.OutputTokens += t.OutputTokens
		u.CacheReadTokens += t.CacheReadTokens
		u.CacheWriteTokens += t.CacheWriteTokens
		read += t.ResidentCacheRead
	}
	t := line(u, 0, len(l.turns))
	t.ResidentCacheRead, t.Saved, t.ResidentInput = read, saved, u.InputTokens+saved
	return t
}

// Write prints the ledger: one line per request, then the total and the
// saving.
func (l *Ledger) Write(w io.Writer) error {
	tok := func(n int) string { return textfmt.Thousands(n) }
	mark, est := "", ""
	if l.estimate {
		mark, est = "~", " (estimate)"
	}
	ew := &errWriter{w: w}
	ew.printf("Usage ledger (tokens as the provider counted them; all-resident = input %s: every tool's definition instead of the deferred ones, the index and the entry tools, counted with %s)\n",
		l.deltas(est), l.encoding)
	ew.printf("  %-7s %9s %9s %9s %8s %6s %14s\n", "request", "input", "cache rd", "cache wr", "output", "hit", "all-resident")
	for _, t := range l.turns {
		ew.printf("  %-7d %9s %9s %9s %8s %5.0f%% %14s\n", t.Turn, tok(t.InputTokens), tok(t.CacheReadTokens), tok(t.CacheWriteTokens), tok(t.OutputTokens), t.HitRatio*100, mark+tok(t.ResidentInput))
	}
	tt := l.Total()
	ew.printf("  %-7s %9s %9s %9s %8s %5.0f%% %14s\n", "total", tok(tt.InputTokens), tok(tt.CacheReadTokens), tok(tt.CacheWriteTokens), tok(tt.OutputTokens), tt.HitRatio*100, mark+tok(tt.ResidentInput))
	if tt.Saved >= 0 {
		ew.printf("  deferral saved %s%s input tokens over %d requests\n", mark, tok(tt.Saved), len(l.turns))
	} else {
		ew.printf("  deferral cost %s%s more input tokens over %d requests than every tool resident: the entry tools outweigh what is deferred\n", mark, tok(-tt.Saved), len(l.turns))
	}
	for _, m := range l.Misses() {
		ew.printf("  %s\n", m.Text)
	}
	return ew.err
}

// signed writes n with its sign.
func signed(n int) string {
	if n < 0 {
		return "-" + textfmt.Thousands(-n)
	}
	return "+" + textfmt.Thousands(n)
}

// deltas writes the resident delta of the lines: one figure when they all
// used the same (the header and the rows agree), else each figure with
// the requests that used it.
func (l *Ledger) deltas(est string) string {
	if len(l.turns) == 0 {
		return signed(l.delta) + est + " tokens a request"
	}
	type run struct{ delta, from, to int }
	var runs []run
	for _, t := range l.turns {
		if n := len(runs); n > 0 && runs[n-1].delta == t.Delta {
			runs[n-1].to = t.Turn
			continue
		}
		runs = append(runs, run{t.Delta, t.Turn, t.Turn})
	}
	if len(runs) == 1 {
		return signed(runs[0].delta) + est + " tokens a request"
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		span := fmt.Sprintf("request %d", r.from)
		if r.to > r.from {
			span = fmt.Sprintf("requests %d-%d", r.from, r.to)
		}
		parts[i] = signed(r.delta) + " (" + span + ")"
	}
	return "+ the delta of its request's tools" + est + ", " + strings.Join(parts, ", ")
}

// Misses returns the cache misses the ledger explained, in order.
func (l *Ledger) Misses() []CacheMiss {
	var out []CacheMiss
	for _, t := range l.turns {
		if t.Miss != nil {
			out = append(out, *t.Miss)
		}
	}
	return out
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

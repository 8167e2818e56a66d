package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
	"github.com/toolshelf/toolshelf/request"
)

// maxRunBytes bounds a recorded run read by misses.
const maxRunBytes = 256 << 20

// runRecord is one request of a recorded run: when it was sent, its body
// and the provider's reply (a whole body, or the server-sent events of a
// stream).
type runRecord struct {
	At     time.Time       `json:"at"`
	Model  string          `json:"model,omitempty"` // Gemini names it in the URL
	Body   json.RawMessage `json:"body"`
	Reply  json.RawMessage `json:"reply,omitempty"`
	Stream string          `json:"reply_stream,omitempty"`
}

// missJSON is one line of misses' --json output.
type missJSON struct {
	Turn     int              `json:"turn"`
	Missed   int              `json:"missed_tokens"`
	Cause    budget.MissCause `json:"cause"`
	Provider string           `json:"provider_reason,omitempty"`
	Text     string           `json:"text"`
}

// runMisses explains the cache misses of a recorded run: a JSON array of
// requests with their replies, or a ledger's lines (budget.Ledger.Turns
// as JSON). Exit 1 when a request missed.
func runMisses(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("misses", flag.ContinueOnError)
	provider := fs.String("provider", "", "`PROVIDER` of the recorded bodies: openai-chat, openai-responses, anthropic or gemini")
	ttl := fs.Duration("ttl", 0, "the provider's cache lifetime (default: anthropic 5m, openai 24h, gemini none documented)")
	tolerance := fs.Int("tolerance", 128, "a shortfall of at most `N` tokens is not a miss")
	asJSON := fs.Bool("json", false, "write JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return parseFailed(fs, err, stdout, stderr)
	}
	if len(pos) != 1 {
		return fail(stderr, "toolshelf misses: want one file, got %d (usage: toolshelf misses --provider P RUN.json)", len(pos))
	}
	data, err := readBounded(pos[0], maxRunBytes)
	if err != nil {
		return fail(stderr, "toolshelf misses: %s: %v", pos[0], err)
	}
	var misses []missJSON
	if ledgerLines(data) {
		misses, err = ledgerMisses(data)
	} else {
		p := request.Provider(*provider)
		if *ttl == 0 {
			*ttl = budget.DefaultTTL(p, nil)
		}
		misses, err = runMissesOf(p, data, *ttl, *tolerance)
	}
	if err != nil {
		return fail(stderr, "toolshelf misses: %s: %v", pos[0], err)
	}
	var out bytes.Buffer
	if *asJSON {
		if misses == nil {
			misses = []missJSON{}
		}
		if err := writeJSON(&out, misses); err != nil {
			return fail(stderr, "toolshelf misses: %v", err)
		}
	} else if len(misses) == 0 {
		fmt.Fprintln(&out, "no cache miss")
	}
	if !*asJSON {
		for _, m := range misses {
			fmt.Fprintln(&out, m.Text)
		}
	}
	stdout.Write(out.Bytes())
	if len(misses) > 0 {
		return exitFinding
	}
	return exitOK
}

// ledgerLines reports whether data is an array of ledger lines.
func ledgerLines(data []byte) bool {
	var first []map[string]json.RawMessage
	if json.Unmarshal(data, &first) != nil || len(first) == 0 {
		return false
	}
	_, body := first[0]["body"]
	_, in := first[0]["input_tokens"]
	return in && !body
}

// ledgerMisses prints the misses a ledger already explained.
func ledgerMisses(data []byte) ([]missJSON, error) {
	var lines []budget.LedgerTurn
	if err := json.Unmarshal(data, &lines); err != nil {
		return nil, fmt.Errorf("want a JSON array of ledger lines: %v", err)
	}
	var out []missJSON
	for _, l := range lines {
		if m := l.Miss; m != nil {
			out = append(out, missJSON{Turn: m.Turn, Missed: m.Missed, Cause: m.Cause, Provider: m.Provider, Text: clipLine(m.Text)})
		}
	}
	return out, nil
}

// clipLine keeps a stored text on one line of bounded length.
func clipLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 {
			return ' '
		}
		return r
	}, s)
	if len(s) > 1000 {
		s = strings.ToValidUTF8(s[:1000], "") + "…"
	}
	return s
}

// runMissesOf decodes each reply and compares each body with the one
// before it.
func runMissesOf(p request.Provider, data []byte, ttl time.Duration, tolerance int) ([]missJSON, error) {
	var recs []runRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("want a JSON array of {at, body, reply or reply_stream}, or a ledger's lines: %v", err)
	}
	var out []missJSON
	var prev request.Usage
	for i, r := range recs {
		var rep request.Reply
		var err error
		if r.Stream != "" {
			rep, err = request.DecodeStream(p, strings.NewReader(r.Stream))
		} else {
			rep, err = request.DecodeReply(p, r.Reply)
		}
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i+1, err)
		}
		u := rep.Usage
		if i > 0 {
			short := prev.CacheReadTokens + prev.CacheWriteTokens - u.CacheReadTokens
			if short > tolerance {
				out = append(out, explainRun(p, i+1, short, u.Diagnosis, &recs[i-1], &r, ttl))
			}
		}
		prev = u
	}
	return out, nil
}

// bodyKeys are the members of a request body that hold its system text
// and its messages, by provider.
var bodyKeys = map[request.Provider][2]string{
	request.Anthropic:       {"system", "messages"},
	request.OpenAIResponses: {"instructions", "input"},
	request.OpenAIChat:      {"", "messages"},
	request.Gemini:          {"systemInstruction", "contents"},
}

// explainRun gives the miss of request turn its cause from what differs
// between the two recorded bodies, checked against the provider's reason.
func explainRun(p request.Provider, turn, short int, d *request.CacheDiagnosis, a, b *runRecord, ttl time.Duration) missJSON {
	m := missJSON{Turn: turn, Missed: short}
	if d != nil {
		m.Provider = clipLine(d.Reason)
		if d.MissedTokens > 0 {
			m.Missed = d.MissedTokens
		}
	}
	var x, y map[string]json.RawMessage
	_ = json.Unmarshal(a.Body, &x)
	_ = json.Unmarshal(b.Body, &y)
	keys := bodyKeys[p]
	what := ""
	switch {
	case !bytes.Equal(x["model"], y["model"]) || a.Model != b.Model:
		m.Cause, what = budget.CauseModel, "model changed"
	case !sameJSON(x[keys[0]], y[keys[0]]):
		m.Cause, what = budget.CauseTools, "system changed"
	case !sameJSON(x["tools"], y["tools"]):
		m.Cause, what = budget.CauseTools, "tools changed"
	case !sameSettings(x, y, keys[0], keys[1]):
		m.Cause, what = budget.CauseSettings, "settings changed"
	case !appended(x[keys[1]], y[keys[1]]):
		m.Cause, what = budget.CauseHistoryEdit, fmt.Sprintf("earlier messages differ from request %d's (a compaction or an edit of history)", turn-1)
	case ttl > 0 && b.At.Sub(a.At) > ttl:
		m.Cause, what = budget.CauseExpired, fmt.Sprintf("expired — %s since request %d (TTL %s)", b.At.Sub(a.At).Round(time.Second), turn-1, ttl)
	default:
		m.Cause, what = budget.CauseUnknown, "no known cause: the bodies differ only by what was appended"
		switch m.Provider {
		case "", "unavailable", "cache_hit", "previous_message_not_found", "comparison_response_not_found":
			if m.Provider == "unavailable" {
				m.Cause = budget.CauseUnavailable
			}
		default:
			m.Cause, what = budget.CauseOutside, fmt.Sprintf("but request %d only appended to request %d's: what was sent is not what was recorded", turn, turn-1)
		}
	}
	if m.Provider != "" {
		what = "provider says " + m.Provider + "; " + what
	}
	m.Text = fmt.Sprintf("turn %d: %s tokens not read from cache — %s", turn, textfmt.Thousands(m.Missed), what)
	return m
}

// sameJSON compares two JSON values, ignoring cache breakpoints.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(noCache(x), noCache(y))
}

// sameSettings compares the top-level members other than the model,
// system, tools, messages and the diagnosis fields.
func sameSettings(x, y map[string]json.RawMessage, system, msgs string) bool {
	skip := map[string]bool{"model": true, system: true, msgs: true, "tools": true, "diagnostics": true, "prompt_cache_options": true}
	for _, m := range []map[string]json.RawMessage{x, y} {
		for k := range m {
			if !skip[k] && !bytes.Equal(x[k], y[k]) {
				return false
			}
		}
	}
	return true
}

// appended reports whether b's messages begin with a's (the last one of a
// may have gained blocks: Anthropic reopens a user message).
func appended(a, b json.RawMessage) bool {
	var x, y []any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil || len(y) < len(x) {
		return false
	}
	for i := 0; i+1 < len(x); i++ {
		if !reflect.DeepEqual(noCache(x[i]), noCache(y[i])) {
			return false
		}
	}
	return true
}

func noCache(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "cache_control" {
				out[k] = noCache(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = noCache(e)
		}
		return out
	}
	return v
}

package request

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// ErrEdited is wrapped by the error a request build returns when the body
// would change or drop something the conversation already sent — the
// prefix (system, tools[]) or an earlier message — and the harness did
// not declare the change with [Session.DeclareRewrite]. On models with
// preserved thinking such a body is refused by the provider; everywhere
// it costs the prompt cache.
var ErrEdited = errors.New("request: the body edits what was already sent")

// This file is the send check (issue 44). A session's state carries the
// digest chain of what it has sent: one digest per member of the prefix
// (per element of tools[] and of the system array) and per part of every
// message (per content block, part or item). A restored session — another
// replica, a Store's conversation — computes the chain of the body it
// would send and compares: the first part that differs or is missing is
// named in the error of the next build. The digests are 64-bit prefixes of
// SHA-256: an accident detector, not a seal (a Store's key seals records).

// minPartBytes bounds the digest chain read back from stored state by
// the body it describes: a part is at least a few bytes of the body.
const minPartBytes = 8

// sentState is the digest chain as saved.
type sentState struct {
	// Provider is the provider the chain was sent to: a session restored
	// for another provider has sent it nothing yet.
	Provider Provider `json:"provider,omitempty"`
	// Prefix holds "path=digest" for each member of the prefix (each
	// element of an array member: tools[3]).
	Prefix []string `json:"prefix"`
	// Messages holds, per message sent, its parts "member=digest" (an
	// array member one part per element: content[1]=…), space-separated.
	Messages []string `json:"history,omitempty"`
}

// sentChain is a chain being compared: the saved form, and where the
// history's messages sit in the body (key and index of the first).
type sentChain struct {
	sentState
	key    string
	offset int
}

// digest is the chain's digest of b.
func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// chainOf computes the chain of the body f and buf make: the prefix
// (closed as a body, "]}") and each encoded message of the history. It
// scans the bytes once, without decoding them: a long history costs its
// digests and one string per message.
func chainOf(f *frozenPrefix, buf []byte) (*sentChain, error) {
	body := append(slices.Clip(f.prefix), "]}"...)
	c := &sentChain{}
	ok := eachMember(body, func(k, v []byte) {
		switch key := string(k); key {
		case "messages", "input", "contents":
			c.key = key
			eachElem(v, func(e []byte) {
				c.Prefix = append(c.Prefix, key+"["+strconv.Itoa(c.offset)+"]="+digest(e))
				c.offset++
			})
		default:
			c.Prefix = append(c.Prefix, memberParts(nil, key, v)...)
		}
	})
	if !ok {
		return nil, errors.New("the prefix is not a JSON object")
	}
	if len(buf) == 0 {
		return c, nil
	}
	var line []byte
	okAll := eachElem(append(append([]byte{'['}, buf...), ']'), func(m []byte) {
		line = line[:0]
		if !eachMember(m, func(k, v []byte) { line = appendParts(line, k, v) }) {
			line = appendDigest(append(line[:0], '='), m)
		}
		c.Messages = append(c.Messages, string(line))
	})
	if !okAll {
		return nil, errors.New("the history is not a list of messages")
	}
	return c, nil
}

// appendParts appends a message member's parts to line, space-separated:
// "key=digest", or "key[i]=digest" per element of a non-empty array.
func appendParts(line, key, v []byte) []byte {
	sep := func() {
		if len(line) > 0 {
			line = append(line, ' ')
		}
	}
	if len(v) > 0 && v[0] == '[' {
		i, n := 0, len(line)
		eachElem(v, func(e []byte) {
			sep()
			line = append(append(line, key...), '[')
			line = strconv.AppendInt(line, int64(i), 10)
			line = appendDigest(append(line, ']', '='), e)
			i++
		})
		if i > 0 {
			return line
		}
		line = line[:n]
	}
	sep()
	return appendDigest(append(append(line, key...), '='), v)
}

// appendDigest appends the chain's digest of b, in hex.
func appendDigest(dst, b []byte) []byte {
	s := sha256.Sum256(b)
	return hex.AppendEncode(dst, s[:8])
}

// memberParts appends the parts of a member to dst: one per element of a
// non-empty array (tools[3]), else one.
func memberParts(dst []string, path string, v []byte) []string {
	n := len(dst)
	if len(v) > 0 && v[0] == '[' {
		i := 0
		eachElem(v, func(e []byte) {
			dst = append(dst, path+"["+strconv.Itoa(i)+"]="+digest(e))
			i++
		})
		if len(dst) > n {
			return dst
		}
	}
	return append(dst, path+"="+digest(v))
}

// eachMember calls f with each member of the JSON object b
// ([jsonx.EachMember]); false when b is not an object.
func eachMember(b []byte, f func(k, v []byte)) bool {
	return jsonx.EachMember(b, func(k, v []byte) error { f(k, v); return nil }) == nil
}

// eachElem calls f with each element of the JSON array b
// ([jsonx.EachElement]); false when b is not an array.
func eachElem(b []byte, f func(e []byte)) bool {
	return jsonx.EachElement(b, func(e []byte) error { f(e); return nil }) == nil
}

// firstEdit compares the chain of the body a session would send (now)
// with the chain of what was sent: nil when now only extends sent, else
// an error naming the first part that differs or is missing. The last
// message sent may have grown (Anthropic and Gemini join a user-side
// message to the one before it).
func firstEdit(sent *sentState, now *sentChain) error {
	if d := firstPart("", sent.Prefix, now.Prefix, false); d != "" {
		return fmt.Errorf("%w: the prefix changed: %s", ErrEdited, d)
	}
	for i, m := range sent.Messages {
		at := now.key + "[" + strconv.Itoa(i+now.offset) + "]"
		if i >= len(now.Messages) {
			return fmt.Errorf("%w: %s was sent and is missing (%d messages sent, %d now); declare a compaction with Session.DeclareRewrite", ErrEdited, at, len(sent.Messages), len(now.Messages))
		}
		if m == now.Messages[i] {
			continue
		}
		if d := firstPart(at, strings.Fields(m), strings.Fields(now.Messages[i]), i == len(sent.Messages)-1); d != "" {
			return fmt.Errorf("%w: %s", ErrEdited, d)
		}
	}
	return nil
}

// firstPart returns the first part of sent that now changes or drops,
// described with its path under at, or "". With grow, now may have more
// parts after sent's (content appended to the message); else a part
// added is a change.
func firstPart(at string, sent, now []string, grow bool) string {
	path := func(p string) string {
		k, _, _ := strings.Cut(p, "=")
		if at != "" {
			return at + "." + k
		}
		return k
	}
	for i, p := range sent {
		if i >= len(now) {
			return path(p) + " was sent and is missing"
		}
		if now[i] != p {
			if path(now[i]) != path(p) {
				return path(p) + " was sent and is missing (" + path(now[i]) + " is in its place)"
			}
			return path(p) + " differs from what was sent"
		}
	}
	if len(now) > len(sent) && !grow {
		return path(now[len(sent)]) + " was added to what was sent"
	}
	return ""
}

// checkSentState validates a chain read back from stored state: bounded
// by the body it describes, every part "path=digest".
func checkSentState(st *sentState, bodyLen int) error {
	n := len(st.Prefix) + len(st.Messages)
	if n > bodyLen/minPartBytes+64 {
		return fmt.Errorf("sent: %d parts for a body of %d bytes", n, bodyLen)
	}
	for _, p := range st.Prefix {
		if path, d, ok := strings.Cut(p, "="); !ok || path == "" || len(d) > 16 {
			return fmt.Errorf("sent: part %.80q is not path=digest", p)
		}
	}
	for _, m := range st.Messages {
		if m == "" || len(m) > 64*1024 {
			return errors.New("sent: a message's parts are empty or over 64 KiB")
		}
	}
	return nil
}

// checkRestored compares the body a restored session would send with
// the chain its state saved; a difference is kept and refused at the next
// build until the harness declares it. s.mu need not be held: the session
// is not shared yet.
func (s *Session) checkRestored(saved *sentState) error {
	if saved == nil || (saved.Provider != "" && saved.Provider != s.cfg.Provider) {
		return nil
	}
	if err := checkSentState(saved, len(s.frozen.sent().prefix)+len(s.hist.buf)); err != nil {
		return err
	}
	now, err := chainOf(s.frozen.sent(), s.hist.buf)
	if err != nil {
		return err
	}
	s.edited = firstEdit(saved, now)
	return nil
}

// DeclareRewrite declares that the harness changed what the conversation
// sends on purpose — a compaction that replaced earlier messages, history
// edited and restored, a session restored with a Config whose prefix
// differs (a new system prompt), a deliberate restart of the prompt cache
// — so that the next body, which does not extend the last one sent, is
// built instead of refused with [ErrEdited]. The body after it is the
// conversation's new base: the send check follows it from there. The
// change log records it as a history edit ([ChangeHistoryEdit]), so a
// ledger that follows the session blames the cache miss it costs on it.
func (s *Session) DeclareRewrite() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.add(ChangeHistoryEdit, "DeclareRewrite", true)
	s.allowRewrite()
}

// allowRewrite lets the next body differ from what was sent. s.mu must be
// held.
func (s *Session) allowRewrite() {
	s.edited = nil
	s.rewrites++
}

// restartPrefix records a prefix the session rebuilt itself (a view change
// its prefix could not reach append-only): a declared restart.
func (s *Session) restartPrefix() {
	s.rewrites++
}

package request

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// defaultMaxReplyBytes bounds a whole response body given to
// [DecodeReply]: 16 MiB, the bound of one stream event, since the Responses
// API's response.completed event carries a whole response. The longest
// reply any of the three APIs allows (128,000 output tokens, about 0.5 MB
// of text) fits many times over, with room for native parts (search
// results, encrypted reasoning).
const defaultMaxReplyBytes = 16 << 20

// defaultMaxStreamBytes bounds the bytes of one event stream read by
// [DecodeStream] (or the data fed to one [Stream]): 32 MiB. Chat
// Completions and the Responses API send about one token per event in an
// envelope of about 200 bytes, so a 128,000-token reply, the longest any
// of the three APIs allows, streams about 26 MB; Anthropic's events carry
// several tokens each and stay well below. A larger stream is not a reply
// a provider sends, and is refused before it grows the harness's memory.
const defaultMaxStreamBytes = 32 << 20

// A decoder decodes provider replies within bounds. The zero value uses
// the defaults; [DecodeReply], [DecodeStream] and [NewStream] are the zero
// decoder's methods. A reply or stream over its bound is an error wrapping
// [ErrReply].
type decoder struct {
	// MaxReplyBytes bounds a whole response body; 0 means
	// [defaultMaxReplyBytes].
	MaxReplyBytes int
	// MaxStreamBytes bounds an event stream, its framing included; 0
	// means [defaultMaxStreamBytes].
	MaxStreamBytes int
}

func (d decoder) maxReply() int {
	if d.MaxReplyBytes > 0 {
		return d.MaxReplyBytes
	}
	return defaultMaxReplyBytes
}

func (d decoder) maxStream() int {
	if d.MaxStreamBytes > 0 {
		return d.MaxStreamBytes
	}
	return defaultMaxStreamBytes
}

// DecodeReply is [DecodeReply] within d's bound.
func (d decoder) DecodeReply(p Provider, body []byte) (Reply, error) {
	if max := d.maxReply(); len(body) > max {
		return Reply{}, fmt.Errorf("%w: the %s response body has %d bytes, over the bound of %d", ErrReply, p, len(body), max)
	}
	return decodeReply(p, body)
}

// NewStream is [NewStream] within d's bound.
func (d decoder) NewStream(p Provider) (*Stream, error) {
	enc, ok := encoderFor(p)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownProvider, p)
	}
	return &Stream{p: p, enc: enc, max: d.maxStream()}, nil
}

// DecodeStream is [DecodeStream] within d's bound: reading stops with an
// error once the stream passes it.
func (d decoder) DecodeStream(p Provider, r io.Reader) (Reply, error) {
	s, err := d.NewStream(p)
	if err != nil {
		return Reply{}, err
	}
	lr := &io.LimitedReader{R: r, N: int64(s.max) + 1}
	err = readEvents(lr, s.Event)
	if lr.N <= 0 {
		// The event cut by the bound may have failed first.
		return Reply{}, s.overBound()
	}
	if err != nil {
		return Reply{}, err
	}
	return s.Reply()
}

func (s *Stream) overBound() error {
	return fmt.Errorf("%w: the %s stream passed its bound of %d bytes", ErrReply, s.p, s.max)
}

// replyBuilder assembles a reply's message: its text parts are collected
// and joined once, so that a reply of n text blocks costs its size and not
// n times it (joining with += cost 817 times the size of a 1 MB reply of
// 40,000 one-character blocks), and its tool calls are checked for
// duplicate ids.
type replyBuilder struct {
	m     Message
	parts []string
	n     int
}

func (b *replyBuilder) addText(s string) {
	if s != "" {
		b.parts = append(b.parts, s)
		b.n += len(s)
	}
}

// message returns the assembled message. Two tool calls with one id are
// an error here, at decode time, before the harness runs either: the
// session would refuse the history at the next request, after both ran.
func (b *replyBuilder) message(where string) (Message, error) {
	switch len(b.parts) {
	case 0:
	case 1:
		b.m.Text = b.parts[0]
	default:
		var sb strings.Builder
		sb.Grow(b.n)
		for _, p := range b.parts {
			sb.WriteString(p)
		}
		b.m.Text = sb.String()
	}
	if calls := b.m.ToolCalls; len(calls) > 1 {
		seen := make(map[string]int, len(calls))
		for i, c := range calls {
			if j, dup := seen[c.ID]; dup {
				return Message{}, replyError(where, "tool calls %d and %d share the id %.80q; each call needs its own", j, i, c.ID)
			}
			seen[c.ID] = i
		}
	}
	return b.m, nil
}

// sumTokens adds token counts, refusing a negative count and a sum that
// would wrap: the ledger and the cache hit ratio are computed from them.
func sumTokens(where string, counts ...int) (int, error) {
	total := 0
	for _, c := range counts {
		if c < 0 {
			return 0, replyError(where, "negative token count %d", c)
		}
		if c > math.MaxInt-total {
			return 0, replyError(where, "token counts overflow")
		}
		total += c
	}
	return total, nil
}

// check refuses usage figures no provider reports: a negative count, or
// cache reads and writes above the input they are part of.
func (u Usage) check(where string) error {
	if _, err := sumTokens(where+".usage", u.InputTokens, u.OutputTokens); err != nil {
		return err
	}
	cached, err := sumTokens(where+".usage", u.CacheReadTokens, u.CacheWriteTokens)
	if err != nil {
		return err
	}
	if cached > u.InputTokens {
		return replyError(where+".usage", "%d cached input tokens (read and written) of %d input tokens", cached, u.InputTokens)
	}
	return nil
}

package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// Stream accumulates a streamed reply, event by event, into the same
// [Reply] that [DecodeReply] gives for the whole body: text deltas joined,
// tool call arguments assembled from their deltas, native parts rebuilt
// and kept verbatim, the stop reason and the usage. Feed it the events of
// one response with [Stream.Event] (or let [DecodeStream] read them), then
// call [Stream.Reply].
//
// A Stream is not safe for concurrent use.
type Stream struct {
	p     Provider
	enc   encoder
	n     int  // events seen
	done  bool // the terminal event arrived
	err   error
	max   int // bound on the data of all events (decoder.MaxStreamBytes)
	total int // data of all events so far

	// Chat Completions
	chatText  strings.Builder
	chatCalls []*streamCall
	stop      string
	usage     Usage
	id        string          // the provider's response id
	diag      *CacheDiagnosis // Anthropic: from message_start

	// Anthropic: content blocks by index. Responses: output items by index.
	blocks []*streamBlock
	final  *Reply // Responses: the reply decoded from response.completed

	// Gemini: candidate 0's parts, chunk by chunk.
	gemini geminiReply
}

// streamBlock is an Anthropic content block or a Responses output item
// being assembled.
type streamBlock struct {
	start []byte // the block (item) as it was announced
	text  strings.Builder
	json  []byte // input_json_delta / function_call_arguments.delta
	sig   strings.Builder
	done  []byte // Responses: the item of response.output_item.done
}

// NewStream returns an empty stream accumulator for provider p, whose
// events' data may total 32 MiB (see [DecodeStream]).
func NewStream(p Provider) (*Stream, error) {
	return decoder{}.NewStream(p)
}

// DecodeStream reads a server-sent event stream of provider p from r to
// its end and returns the accumulated reply. A stream that ends before the
// provider's terminal event (message_stop, response.completed, [DONE]) is
// an error: the reply is incomplete. A stream over 32 MiB, its framing
// included, is an error too: a 128,000-token reply, the longest any of
// the three APIs allows, streams about 26 MB on Chat Completions and the
// Responses API (about one token per event of about 200 bytes), and
// Anthropic's events carry several tokens each. Reading stops at the
// bound, before the stream grows the harness's memory.
func DecodeStream(p Provider, r io.Reader) (Reply, error) {
	return decoder{}.DecodeStream(p, r)
}

// Event feeds one server-sent event: its name (the event: field, which
// Chat Completions does not send) and its data. An event the accumulator
// does not use (ping, response.in_progress ...) is skipped. An error names
// the event by its position and type; after an error, or after the
// terminal event, further events are refused.
func (s *Stream) Event(name string, data []byte) (err error) {
	if s.err != nil {
		return s.err
	}
	s.n++
	defer func() {
		if err != nil {
			s.err = err
		}
	}()
	if s.done {
		return s.eventError(name, "event after the end of the stream")
	}
	if s.total += len(data); s.total > s.max {
		return s.overBound()
	}
	return s.enc.streamEvent(s, name, data)
}

// typedEvent feeds an event of a provider that names each event by its
// type (Anthropic, the Responses API) to one, after the shared handling
// of error events. An event without an event: field is named by the type
// member of its data.
func (s *Stream) typedEvent(name string, data []byte, one func(typ string, data []byte) error) error {
	if name == "" {
		var head struct {
			Type string `json:"type"`
		}
		if err := unmarshalExact(data, &head); err != nil {
			return s.eventError(name, "data is not a JSON object: %v", err)
		}
		name = head.Type
	}
	if name == "error" {
		var e struct {
			Error json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		return fmt.Errorf("event %d (%s): %w", s.n, name, providerError("stream", e.Error))
	}
	return one(name, data)
}

func (s *Stream) eventError(name, format string, args ...any) error {
	return fmt.Errorf("%w: event %d (%.60s): %s", ErrReply, s.n, name, fmt.Sprintf(format, args...))
}

// Reply returns the accumulated reply once the stream is complete.
func (s *Stream) Reply() (Reply, error) {
	if s.err != nil {
		return Reply{}, s.err
	}
	if !s.done {
		return Reply{}, fmt.Errorf("%w: the %s stream ended after %d events, before its terminal event; the reply is incomplete", ErrReply, s.p, s.n)
	}
	return s.enc.streamReply(s)
}

// maxStreamParts bounds the tool calls, blocks or items of one streamed
// reply, so that a hostile stream cannot grow them without end.
const maxStreamParts = 4096

// block returns the started block (item) at index, the event's member
// field; an event without it is an error.
func (s *Stream) block(index *int, field, name string) (*streamBlock, error) {
	if index == nil {
		return nil, s.eventError(name, "no %s", field)
	}
	if i := *index; i < 0 || i >= len(s.blocks) || s.blocks[i] == nil {
		return nil, s.eventError(name, "content index %d was never started", i)
	}
	return s.blocks[*index], nil
}

// startBlock starts the block (item) raw at index, the event's member
// field.
func (s *Stream) startBlock(index *int, field, name string, raw []byte) error {
	if index == nil {
		return s.eventError(name, "no %s", field)
	}
	i := *index
	if i < 0 || i >= maxStreamParts {
		return s.eventError(name, "index %d out of range", i)
	}
	for len(s.blocks) <= i {
		s.blocks = append(s.blocks, nil)
	}
	if s.blocks[i] != nil {
		return s.eventError(name, "index %d started twice", i)
	}
	if !isObject(raw) {
		return s.eventError(name, "want an object at index %d", i)
	}
	s.blocks[i] = &streamBlock{start: bytes.Clone(raw)}
	return nil
}

// setMember sets member key of ms to v in place, or appends it when ms
// has no such member.
func setMember(ms []jsonx.Member, key string, v []byte) []jsonx.Member {
	for i := range ms {
		if ms[i].Key == key {
			ms[i].Value = v
			return ms
		}
	}
	return append(ms, jsonx.Member{Key: key, Value: v})
}

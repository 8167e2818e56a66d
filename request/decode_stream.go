package request

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolshelf/toolshelf/internal/jsonx"
)

// maxStreamEvent bounds one server-sent event (its data lines joined), in
// bytes. A longer event is an error: no reply of a provider comes near it.
const maxStreamEvent = 16 << 20

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

	// Anthropic: content blocks by index. Responses: output items by index.
	blocks []*streamBlock
	final  *Reply // Responses: the reply decoded from response.completed
}

// streamCall is a Chat Completions tool call being assembled.
type streamCall struct {
	index    int
	id, name string
	args     []byte
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

// readEvents reads server-sent events from r and calls fn with each
// event's name ("" when the event has no event: field) and data (its data
// lines joined by newlines), in order, until r ends or fn returns an
// error. Comments and fields other than event and data are skipped, as the
// SSE format says.
func readEvents(r io.Reader, fn func(name string, data []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var name string
	var data []byte
	has := false
	for {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: reading the event stream: %w", ErrReply, err)
		}
		eof := errors.Is(err, io.EOF)
		if len(line) == 0 {
			if has {
				if ferr := fn(name, data); ferr != nil {
					return ferr
				}
			}
			name, data, has = "", data[:0], false
			if eof {
				return nil
			}
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if has {
				data = append(data, '\n')
			}
			data = append(data, value...)
			has = true
			if len(data) > maxStreamEvent {
				return fmt.Errorf("%w: an event of the stream exceeds %d bytes", ErrReply, maxStreamEvent)
			}
		}
		if eof {
			if has {
				return fn(name, data)
			}
			return nil
		}
	}
}

// readLine returns the next line without its line ending (\n, \r\n or \r
// before \n), bounded by MaxStreamEvent.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxStreamEvent {
			return nil, fmt.Errorf("a line of the stream exceeds %d bytes", maxStreamEvent)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, err
	}
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

// --- Chat Completions -------------------------------------------------------

func (s *Stream) chatEvent(name string, data []byte) error {
	var ch struct {
		Error   json.RawMessage `json:"error"`
		Choices []struct {
			Index int `json:"index"`
			Delta struct {
				Content   *string    `json:"content"`
				Refusal   *string    `json:"refusal"`
				ToolCalls []chatCall `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *chatUsage `json:"usage"`
	}
	if err := unmarshalExact(data, &ch); err != nil {
		return s.eventError(name, "data is not a chat.completion.chunk object: %v", err)
	}
	if isObject(ch.Error) {
		return fmt.Errorf("event %d: %w", s.n, providerError("stream", ch.Error))
	}
	if ch.Usage != nil {
		s.usage = ch.Usage.usage()
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // the session continues choice 0 only
		}
		if c.Delta.Content != nil {
			s.chatText.WriteString(*c.Delta.Content)
		} else if c.Delta.Refusal != nil {
			s.chatText.WriteString(*c.Delta.Refusal)
		}
		for _, d := range c.Delta.ToolCalls {
			call := s.chatCall(d.Index)
			if call == nil {
				if d.ID == "" {
					return s.eventError(name, "tool call delta for index %d before the call's first chunk (no id)", d.Index)
				}
				if len(s.chatCalls) >= maxStreamParts {
					return s.eventError(name, "more than %d tool calls", maxStreamParts)
				}
				call = &streamCall{index: d.Index, id: d.ID}
				s.chatCalls = append(s.chatCalls, call)
			}
			if err := s.sameCall(name, call, d); err != nil {
				return err
			}
			if d.Function.Arguments != nil {
				call.args = append(call.args, *d.Function.Arguments...)
			}
		}
		if c.FinishReason != nil {
			s.stop = *c.FinishReason
		}
	}
	return nil
}

// maxStreamParts bounds the tool calls, blocks or items of one streamed
// reply, so that a hostile stream cannot grow them without end.
const maxStreamParts = 4096

// sameCall checks a tool call chunk d against the call already at its
// index: an id or a name other than the call's is another call, not a
// continuation, and merging them would run a call the model never made
// (call_A with the name of call_B and the arguments of both). The name,
// sent whole in one chunk, is set once; a repeat of the same id or name
// is accepted.
func (s *Stream) sameCall(name string, call *streamCall, d chatCall) error {
	if d.ID != "" && d.ID != call.id {
		return s.eventError(name, "tool call index %d: chunk with id %.80q, but the call has id %.80q", d.Index, d.ID, call.id)
	}
	if n := d.Function.Name; n != "" {
		if call.name != "" && n != call.name {
			return s.eventError(name, "tool call index %d: chunk with name %.80q, but the call is %.80q", d.Index, n, call.name)
		}
		call.name = n
	}
	return nil
}

func (s *Stream) chatCall(index int) *streamCall {
	for _, c := range s.chatCalls {
		if c.index == index {
			return c
		}
	}
	return nil
}

func (s *Stream) chatReply() (Reply, error) {
	b := replyBuilder{m: Message{Role: RoleAssistant}}
	b.addText(s.chatText.String())
	for _, c := range s.chatCalls {
		call, err := toolCall(fmt.Sprintf("stream tool call index %d", c.index), c.id, c.name, c.args)
		if err != nil {
			return Reply{}, err
		}
		b.m.ToolCalls = append(b.m.ToolCalls, call)
	}
	return finishReply(&b, "stream", s.stop, s.usage)
}

// --- Anthropic Messages -----------------------------------------------------

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

func (s *Stream) anthropicEvent(name string, data []byte) error {
	var ev struct {
		Message *struct {
			Usage *anthropicUsage `json:"usage"`
		} `json:"message"`
		Index        *int            `json:"index"`
		ContentBlock json.RawMessage `json:"content_block"`
		Delta        struct {
			Type        string  `json:"type"`
			Text        string  `json:"text"`
			PartialJSON string  `json:"partial_json"`
			Thinking    string  `json:"thinking"`
			Signature   string  `json:"signature"`
			StopReason  *string `json:"stop_reason"`
		} `json:"delta"`
		Usage *anthropicUsage `json:"usage"`
	}
	if err := unmarshalExact(data, &ev); err != nil {
		return s.eventError(name, "%v", err)
	}
	switch name {
	case "message_start":
		if ev.Message == nil {
			return s.eventError(name, "no message")
		}
		if ev.Message.Usage != nil {
			u, err := ev.Message.Usage.usage("message_start.message")
			if err != nil {
				return s.eventError(name, "%v", err)
			}
			s.usage = u
		}
	case "content_block_start":
		return s.startBlock(ev.Index, "index", name, ev.ContentBlock)
	case "content_block_delta":
		b, err := s.block(ev.Index, "index", name)
		if err != nil {
			return err
		}
		switch ev.Delta.Type {
		case "text_delta":
			b.text.WriteString(ev.Delta.Text)
		case "input_json_delta":
			b.json = append(b.json, ev.Delta.PartialJSON...)
		case "thinking_delta":
			b.text.WriteString(ev.Delta.Thinking)
		case "signature_delta":
			b.sig.WriteString(ev.Delta.Signature)
		}
	case "content_block_stop":
		_, err := s.block(ev.Index, "index", name)
		return err
	case "message_delta":
		if ev.Delta.StopReason != nil {
			s.stop = *ev.Delta.StopReason
		}
		if u := ev.Usage; u != nil {
			// The output count is cumulative; input counts, when present,
			// restate message_start's.
			all, err := u.usage("message_delta")
			if err != nil {
				return s.eventError(name, "%v", err)
			}
			s.usage.OutputTokens = u.OutputTokens
			if all.InputTokens > 0 {
				all.OutputTokens = u.OutputTokens
				s.usage = all
			}
		}
	case "message_stop":
		s.done = true
	}
	return nil
}

func (s *Stream) anthropicReply() (Reply, error) {
	rb := replyBuilder{m: Message{Role: RoleAssistant}}
	for i, b := range s.blocks {
		if b == nil {
			return Reply{}, replyError("stream", "content block %d is missing", i)
		}
		block, err := b.anthropicBlock(&rb)
		if err != nil {
			return Reply{}, replyError(fmt.Sprintf("stream content block %d", i), "%v", err)
		}
		if block == nil {
			continue // a text block, its text added to rb
		}
		if err := addAnthropicBlock(&rb, "stream content block", i, block); err != nil {
			return Reply{}, err
		}
	}
	return finishReply(&rb, "stream", s.stop, s.usage)
}

// anthropicBlock rebuilds the whole content block: the announced block with
// its text, thinking, signature or input replaced by what the deltas
// carried, members in the announced order. A text block is not rebuilt:
// its text (announced, then from the deltas) goes to rb, and the block
// returned is nil.
func (b *streamBlock) anthropicBlock(rb *replyBuilder) ([]byte, error) {
	ms, err := jsonx.Members(b.start)
	if err != nil {
		return nil, err
	}
	typ := ""
	_ = json.Unmarshal(jsonx.Get(ms, "type"), &typ)
	str := func(s string) []byte { return jsonx.AppendString(nil, s) }
	switch typ {
	case "text":
		var start struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := unmarshalExact(b.start, &start); err != nil {
			return nil, err
		}
		rb.addText(start.Text)
		rb.addText(b.text.String())
		return nil, nil
	case "thinking":
		if b.text.Len() > 0 {
			var prev string
			_ = json.Unmarshal(jsonx.Get(ms, "thinking"), &prev)
			ms = setMember(ms, "thinking", str(prev+b.text.String()))
		}
		if b.sig.Len() > 0 {
			ms = setMember(ms, "signature", str(b.sig.String()))
		}
	default:
		if len(b.json) > 0 {
			in := bytes.TrimSpace(b.json)
			if !json.Valid(in) {
				return nil, fmt.Errorf("%s input assembled from input_json_delta is not valid JSON (%d bytes; was the reply cut short?)", typ, len(in))
			}
			ms = setMember(ms, "input", in)
		}
	}
	return jsonx.AppendObject(nil, ms), nil
}

// --- Responses API ----------------------------------------------------------

func (s *Stream) responsesEvent(name string, data []byte) error {
	var ev struct {
		OutputIndex *int            `json:"output_index"`
		Item        json.RawMessage `json:"item"`
		Delta       string          `json:"delta"`
		Arguments   *string         `json:"arguments"`
		Response    json.RawMessage `json:"response"`
	}
	if err := unmarshalExact(data, &ev); err != nil {
		return s.eventError(name, "%v", err)
	}
	switch name {
	case "response.output_item.added":
		return s.startBlock(ev.OutputIndex, "output_index", name, ev.Item)
	case "response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta":
		b, err := s.block(ev.OutputIndex, "output_index", name)
		if err != nil {
			return err
		}
		if name == "response.function_call_arguments.delta" {
			b.json = append(b.json, ev.Delta...)
		} else {
			b.text.WriteString(ev.Delta)
		}
	case "response.function_call_arguments.done":
		b, err := s.block(ev.OutputIndex, "output_index", name)
		if err != nil {
			return err
		}
		if ev.Arguments != nil {
			b.json = append(b.json[:0], *ev.Arguments...)
		}
	case "response.output_item.done":
		b, err := s.block(ev.OutputIndex, "output_index", name)
		if err != nil {
			return err
		}
		if !isObject(ev.Item) {
			return s.eventError(name, "no item")
		}
		b.done = bytes.Clone(ev.Item)
	case "response.completed", "response.incomplete", "response.failed":
		var r responsesBody
		if err := unmarshalExact(ev.Response, &r); err != nil {
			return s.eventError(name, "response: %v", err)
		}
		rep, err := r.reply("response")
		if err != nil {
			return fmt.Errorf("event %d (%s): %w", s.n, name, err)
		}
		if len(r.Output) == 0 {
			// The final response may leave its output out: take the
			// output assembled from the stream.
			rep.Message, err = s.responsesMessage()
			if err != nil {
				return fmt.Errorf("event %d (%s): %w", s.n, name, err)
			}
		}
		s.final = &rep
		s.done = true
	}
	return nil
}

func (s *Stream) responsesMessage() (Message, error) {
	m := replyBuilder{m: Message{Role: RoleAssistant}}
	for i, b := range s.blocks {
		where := fmt.Sprintf("stream output item %d", i)
		if b == nil {
			return Message{}, replyError(where, "missing")
		}
		item := b.done
		if item == nil {
			var err error
			if item, err = b.responsesItem(); err != nil {
				return Message{}, replyError(where, "%v", err)
			}
		}
		if err := addResponsesItem(&m, where, item); err != nil {
			return Message{}, err
		}
	}
	return m.message("stream")
}

// responsesItem rebuilds an output item that has no output_item.done:
// the announced item with its text or arguments from the deltas.
func (b *streamBlock) responsesItem() ([]byte, error) {
	ms, err := jsonx.Members(b.start)
	if err != nil {
		return nil, err
	}
	typ := ""
	_ = json.Unmarshal(jsonx.Get(ms, "type"), &typ)
	switch typ {
	case "function_call":
		ms = setMember(ms, "arguments", jsonx.AppendString(nil, string(b.json)))
	case "message":
		part := jsonx.AppendString([]byte(`[{"type":"output_text","text":`), b.text.String())
		part = append(part, "}]"...)
		ms = setMember(ms, "content", part)
	}
	return jsonx.AppendObject(nil, ms), nil
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

func (s *Stream) responsesReply() (Reply, error) {
	if s.final == nil {
		return Reply{}, replyError("stream", "no final response")
	}
	return *s.final, nil
}

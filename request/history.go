package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// history is a session's conversation after the prefix: every message
// encoded once, in the provider's shape, comma-separated, plus the neutral
// form kept for saving and restoring the session.
type history struct {
	provider Provider
	enc      encoder // provider's
	// userNative: a user message may carry native parts, a live-set
	// change (Config.NativeToolChanges on a provider with a native form).
	userNative bool
	buf        []byte    // encoded messages (or input items)
	entries    []Message // the neutral form of what buf holds, unless dropped
	// stored are JSON arrays of the first nStored messages, as a [Store]
	// kept them, decoded on first need (see all); entries follow them.
	stored  [][]byte
	nStored int
	// dropped: the neutral form is not kept (Config.DropMessages); the
	// first nDropped messages are in buf only.
	dropped  bool
	nDropped int
	last     Role     // role of the last entry, "" before the first
	pending  []string // call IDs of the last assistant message still unanswered
	ids      sentIDs  // the ids calls were sent under
	// msg is what the encoder needs to encode a message: the Client tool
	// search mode's state and scratch space.
	msg msgContext
	// scratch space, reused so that a steady turn does not allocate
	pend2 []string
	batch []string
}

// check validates msgs as the continuation of the history, without
// changing it. Errors name the message by its index in the whole
// conversation.
func (h *history) check(msgs []Message) error {
	last := h.last
	pending := append(h.pend2[:0], h.pending...)
	batch := h.batch[:0]
	defer func() { h.pend2, h.batch = pending[:0], batch[:0] }()
	for i := range msgs {
		m := &msgs[i]
		at := h.count() + i
		var err error
		switch m.Role {
		case RoleUser:
			err = h.checkUser(m, last, at, pending)
		case RoleAssistant:
			start := len(batch)
			pending, batch, err = h.checkAssistant(m, last, at, pending, batch)
			if err == nil {
				err = h.checkIDsUnique(m, at, batch, start)
			}
		case RoleTool:
			pending, err = checkTool(m, at, pending)
		default:
			err = fmt.Errorf("%w: messages[%d]: unknown role %q: want user, assistant or tool", ErrInvalidMessage, at, m.Role)
		}
		if err == nil {
			err = h.checkReferences(m, at)
		}
		if err != nil {
			return err
		}
		last = lastRole(m)
	}
	if len(pending) > 0 {
		// Every provider refuses a request whose last assistant message
		// has calls without results.
		return fmt.Errorf("%w: messages[%d]: the conversation ends with call %q unanswered; add each call's result (role tool, call_id) to the turn before building the request", errSequence, h.count()+len(msgs)-1, pending[0])
	}
	return nil
}

// checkTurnStart refuses a turn that opens with a user's text right after
// tool results: the request that carried those results asked the model to
// go on, and its reply — the answer, when it made no calls — is missing. A
// loop that returns on a reply without tool calls and does not add that
// reply to the next turn drops the answer this way, and every provider
// takes the body (Anthropic and Gemini merge the text into the results'
// message), so the model sees the new question with its own answer gone.
// A user message in the same turn as the results (the user spoke while
// the tools ran) is accepted, and so is a block-only one (announcements).
func (h *history) checkTurnStart(msgs []Message) error {
	if h.last != RoleTool || len(msgs) == 0 || msgs[0].Role != RoleUser || msgs[0].Text == "" {
		return nil
	}
	return fmt.Errorf("%w: messages[%d]: user message right after tool results: the model's reply to those results is missing; add the reply (reply.Message, role assistant) to the turn before the user message — a loop that returns on a reply without tool calls must keep it", errSequence, h.count())
}

// checkUser checks user message at (m), after a message of role last,
// with the calls of pending still unanswered.
func (h *history) checkUser(m *Message, last Role, at int, pending []string) error {
	if len(m.Native) > 0 {
		if !h.userNative {
			return fmt.Errorf("%w: messages[%d]: native parts belong to assistant messages (on a user message only with Config.NativeToolChanges on Anthropic and OpenAI Responses)", ErrInvalidMessage, at)
		}
		if err := h.checkNative(m.Native); err != nil {
			return fmt.Errorf("%w: messages[%d].native%v", ErrInvalidMessage, at, err)
		}
	}
	if m.Text == "" && len(m.Blocks) == 0 {
		return fmt.Errorf("%w: messages[%d]: user message has no text", ErrInvalidMessage, at)
	}
	if !utf8.ValidString(m.Text) {
		return fmt.Errorf("%w: messages[%d].text is not valid UTF-8", ErrInvalidMessage, at)
	}
	for j, b := range m.Blocks {
		if blank(b) || !utf8.ValidString(b) {
			return fmt.Errorf("%w: messages[%d].blocks[%d] is empty, whitespace only or not valid UTF-8", ErrInvalidMessage, at, j)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("%w: messages[%d]: user message while call %q has no result; send each call's result (role tool, call_id) first", errSequence, at, pending[0])
	}
	return h.enc.checkOrder(m, last, at)
}

// checkAssistant checks assistant message at (m) and returns pending with
// its calls added, and batch with the id each is sent under, then its own
// id: each id is mapped ([traits.callID]) once per check.
func (h *history) checkAssistant(m *Message, last Role, at int, pending, batch []string) ([]string, []string, error) {
	if m.Text == "" && len(m.ToolCalls) == 0 && len(m.Native) == 0 {
		return pending, batch, fmt.Errorf("%w: messages[%d]: assistant message has neither text nor tool calls", ErrInvalidMessage, at)
	}
	if err := h.checkNative(m.Native); err != nil {
		return pending, batch, fmt.Errorf("%w: messages[%d].native%v", ErrInvalidMessage, at, err)
	}
	if !utf8.ValidString(m.Text) {
		return pending, batch, fmt.Errorf("%w: messages[%d].text is not valid UTF-8", ErrInvalidMessage, at)
	}
	if len(pending) > 0 {
		return pending, batch, fmt.Errorf("%w: messages[%d]: assistant message while call %q has no result; send each call's result (role tool, call_id) first", errSequence, at, pending[0])
	}
	if err := h.enc.checkOrder(m, last, at); err != nil {
		return pending, batch, err
	}
	start, t := len(batch), h.enc.traits()
	for j := range m.ToolCalls {
		c := &m.ToolCalls[j]
		if c.ID == "" || !utf8.ValidString(c.ID) {
			return pending, batch, fmt.Errorf("%w: messages[%d].tool_calls[%d]: id is empty or not valid UTF-8", ErrInvalidMessage, at, j)
		}
		if slices.Contains(pending, c.ID) {
			return pending, batch, fmt.Errorf("%w: messages[%d].tool_calls[%d]: id %q is used twice", ErrInvalidMessage, at, j, c.ID)
		}
		sent := t.callID(c.ID)
		if err := h.checkSentID(c.ID, sent, batch[start:], at, j); err != nil {
			return pending, batch, err
		}
		if !toolname.Valid(c.Name) {
			return pending, batch, fmt.Errorf("%w: messages[%d].tool_calls[%d]: name %q must match ^[a-zA-Z0-9_-]{1,64}$", ErrInvalidMessage, at, j, c.Name)
		}
		if err := checkArguments(c.Arguments); err != nil {
			return pending, batch, fmt.Errorf("%w: messages[%d].tool_calls[%d].arguments: %v", ErrInvalidMessage, at, j, err)
		}
		pending = append(pending, c.ID)
		batch = append(batch, sent, c.ID)
	}
	return pending, batch, nil
}

// checkSentID refuses call j of message at, id, when it would be sent
// under the same id, sent, as another call of its message (earlier: sent
// id then own id pairs): an id the provider refuses is sent as its alias
// (see [traits.callID]), and a harness id could, in principle, equal
// another's alias.
func (h *history) checkSentID(id, sent string, earlier []string, at, j int) error {
	for k := 0; k < len(earlier); k += 2 {
		if earlier[k] == sent {
			return fmt.Errorf("%w: messages[%d].tool_calls[%d]: ids %q and %q are both sent as %q (provider %q's call-id rule); give the call another id", ErrInvalidMessage, at, j, earlier[k+1], id, sent, h.provider)
		}
	}
	return nil
}

// checkTool checks tool result at (m) and returns pending without the call
// it answers.
func checkTool(m *Message, at int, pending []string) ([]string, error) {
	if len(m.Native) > 0 {
		return pending, fmt.Errorf("%w: messages[%d]: native parts belong to assistant messages", ErrInvalidMessage, at)
	}
	k := slices.Index(pending, m.CallID)
	if m.CallID == "" || k < 0 {
		return pending, fmt.Errorf("%w: messages[%d]: tool result for call %q has no matching call in the preceding assistant message", errSequence, at, m.CallID)
	}
	if !utf8.ValidString(m.Text) {
		return pending, fmt.Errorf("%w: messages[%d].text is not valid UTF-8", ErrInvalidMessage, at)
	}
	return slices.Delete(pending, k, k+1), nil
}

// checkNative accepts provider-native parts: JSON objects, for a provider
// that has them.
func (h *history) checkNative(parts []json.RawMessage) error {
	if len(parts) == 0 {
		return nil
	}
	if !h.enc.traits().native {
		return fmt.Errorf(": provider %q has no native parts; send text and tool calls only", h.provider)
	}
	for i, p := range parts {
		if !utf8.Valid(p) || !json.Valid(p) {
			return fmt.Errorf("[%d]: not valid JSON", i)
		}
		if c := bytes.TrimSpace(p); c[0] != '{' {
			return fmt.Errorf("[%d]: want a JSON object, got %.40q", i, c)
		}
	}
	return nil
}

// checkArguments accepts an empty value (no arguments) or a JSON object.
func checkArguments(a []byte) error {
	if noArguments(a) {
		return nil
	}
	if !utf8.Valid(a) {
		return fmt.Errorf("not valid UTF-8")
	}
	for _, c := range a {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
		default:
			return fmt.Errorf("want a JSON object, got %.40q", a)
		}
		break
	}
	if !json.Valid(a) {
		return fmt.Errorf("not valid JSON: %.40q", a)
	}
	return nil
}

// add encodes checked messages and appends them.
func (h *history) add(msgs []Message) {
	for i := range msgs {
		h.addOne(&msgs[i])
	}
}

func (h *history) addOne(m *Message) {
	if h.dropped {
		h.nDropped++
	} else {
		h.entries = append(h.entries, *m)
	}
	h.reserve(m)
	h.buf = h.enc.appendMessage(h.buf, m, h.last, &h.msg)
	h.follow(m)
	h.recordIDs(m)
}

// follow advances the role and the unanswered calls past m.
func (h *history) follow(m *Message) {
	switch m.Role {
	case RoleAssistant:
		h.pending = h.pending[:0]
		for _, c := range m.ToolCalls {
			h.pending = append(h.pending, c.ID)
		}
	case RoleTool:
		if k := slices.Index(h.pending, m.CallID); k >= 0 {
			h.pending = slices.Delete(h.pending, k, k+1)
		}
	}
	if h.msg.client != nil {
		h.msg.client.follow(m)
	}
	h.last = lastRole(m)
}

// lastRole is the role a message after m follows: m's, or
// [roleNativeAfter] after a user message with native parts.
func lastRole(m *Message) Role {
	if m.Role == RoleUser && len(m.Native) > 0 {
		return roleNativeAfter
	}
	return m.Role
}

// reserve grows buf ahead of encoding m, by an eighth rather than append's
// quarter: buf lives as long as the session, and its spare capacity is
// memory every idle session holds (append's growth left ~1.3× the encoded
// history). The estimate is a floor; escaping may exceed it, and append
// then grows as usual.
func (h *history) reserve(m *Message) {
	need := 128 + len(m.Text) + len(m.CallID)
	for _, b := range m.Blocks {
		need += 32 + len(b)
	}
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		need += 96 + len(c.ID) + len(c.Name) + 2*len(c.Arguments)
	}
	for _, p := range m.Native {
		need += 1 + len(p)
	}
	if cap(h.buf)-len(h.buf) >= need {
		return
	}
	n := len(h.buf) + need
	b := make([]byte, len(h.buf), n+n/8)
	copy(b, h.buf)
	h.buf = b
}

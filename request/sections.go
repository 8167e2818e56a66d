package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/registry"
)

// This file hands package budget the sections it measures (budget
// never imports request, so there is one Message type, this package's):
// [Session.Sections] for a live session's latest request, [Transcript] and
// [ParseTranscript] for a recorded conversation. Both describe a message
// with messageSections, so a session measured live and the same messages
// saved and replayed count the same tokens.

// Sections describes the session's latest request as budget sections, in
// request order: the system texts, each exposed tool (name and rendered
// description as prose, schema as JSON), the tool_search index as its own
// section, then every message so far with the host blocks it was sent with.
// tool_search and defer_execute are [budget.ClassEntry]. The deferred tools
// of a native search mode are left out: they are sent with defer_loading,
// and the provider keeps them out of the model's context until its search
// loads them. Every section is frozen, so measuring the next turn with the
// same [budget.Counter] tokenizes only the new messages:
//
//	m := counter.Measure(sess.Sections())
func (s *Session) Sections() []budget.Section {
	var out []budget.Section
	for _, text := range systemTexts(&s.cfg) {
		out = append(out, budget.Section{Name: "system", Class: budget.ClassSystem, Kind: budget.KindProse, Text: text, Frozen: true})
	}
	f := s.Frozen()
	if f.Index() != "" {
		// In tool_search's description (Anthropic) or in the system
		// instructions (OpenAI, which caps descriptions at 1,024).
		out = append(out, budget.Section{Name: "index", Class: budget.ClassIndex, Kind: budget.KindProse, Text: f.Index(), Frozen: true})
	}
	for _, t := range f.Tools() {
		if t.Deferred {
			continue
		}
		class, desc := budget.ClassTool, t.Description
		switch t.Name {
		case registry.ToolSearchName:
			class = budget.ClassEntry
			desc = strings.TrimSuffix(desc, f.Index())
		case registry.DeferExecuteName:
			class = budget.ClassEntry
		}
		out = append(out,
			budget.Section{Name: t.Name, Class: class, Kind: budget.KindProse, Text: t.Name + "\n" + desc, Frozen: true},
			budget.Section{Name: t.Name, Class: class, Kind: budget.KindJSON, Text: string(t.Schema), Frozen: true})
	}
	for i, m := range s.Messages() {
		secs, _ := messageSections(i, &m) // a session's history is valid
		out = append(out, secs...)
	}
	return out
}

// Transcript reduces a conversation in this package's message form — what
// [Session.Messages] returns, with its blocks and native parts — to what
// [budget.Counter.TaskCost] replays: one frozen section per message, its
// host blocks before it as [budget.ClassInjection] sections, and which
// sections the model wrote. An error wraps [ErrInvalidMessage] and names
// the message.
func Transcript(name string, msgs []Message) (*budget.Transcript, error) {
	tr := &budget.Transcript{Name: name}
	for i := range msgs {
		secs, err := messageSections(i, &msgs[i])
		if err != nil {
			return nil, err
		}
		for j, sec := range secs {
			tr.Messages = append(tr.Messages, sec)
			// Blocks come first: the message's own section is the last.
			tr.ByModel = append(tr.ByModel, j == len(secs)-1 && msgs[i].Role == RoleAssistant)
		}
		tr.ToolCalls += len(msgs[i].ToolCalls)
	}
	return tr, nil
}

// ParseTranscript parses a transcript file — a JSON array of [Message], as
// json.Marshal writes [Session.Messages] — and reduces it with
// [Transcript]. Unknown fields are an error, so that a misspelt key is not
// measured as an empty message.
func ParseTranscript(name string, data []byte) (*budget.Transcript, error) {
	var msgs []Message
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msgs); err != nil {
		return nil, fmt.Errorf("%w: transcript %s: want a JSON array of messages: %w", ErrInvalidMessage, name, err)
	}
	return Transcript(name, msgs)
}

// messageSections describes message i: each host block (an injection),
// then the message itself — its native parts, text and tool calls (name,
// then arguments as sent: compact, {} when empty) — rated as JSON when it
// carries calls or native parts or its text is JSON. The message's own
// section is left out when empty, except for an assistant message, which
// stands for a model request.
func messageSections(i int, m *Message) ([]budget.Section, error) {
	name := "message " + strconv.Itoa(i)
	var out []budget.Section
	for _, b := range m.Blocks {
		out = append(out, budget.Section{Name: name, Class: budget.ClassInjection, Kind: budget.KindProse, Text: b, Frozen: true})
	}
	var b strings.Builder
	kind := budget.KindProse
	switch m.Role {
	case RoleUser, RoleTool:
		b.WriteString(m.Text)
		if json.Valid([]byte(m.Text)) && strings.ContainsAny(m.Text, "{[") {
			kind = budget.KindJSON
		}
	case RoleAssistant:
		for _, p := range m.Native {
			var c bytes.Buffer
			if err := json.Compact(&c, p); err != nil || c.Len() == 0 || c.Bytes()[0] != '{' {
				return nil, fmt.Errorf("%w: message %d: a native part must be one JSON object", ErrInvalidMessage, i)
			}
			b.Write(c.Bytes())
			kind = budget.KindJSON
		}
		b.WriteString(m.Text)
		for _, c := range m.ToolCalls {
			if c.Name == "" {
				return nil, fmt.Errorf("%w: message %d: a tool call needs a name", ErrInvalidMessage, i)
			}
			if err := checkArguments(c.Arguments); err != nil {
				return nil, fmt.Errorf("%w: message %d: call %q: arguments must be a JSON object: %v", ErrInvalidMessage, i, c.Name, err)
			}
			b.WriteString(c.Name)
			if noArguments(c.Arguments) {
				b.WriteString("{}")
			} else {
				var args bytes.Buffer
				_ = json.Compact(&args, c.Arguments) // checked above
				b.Write(args.Bytes())
			}
			kind = budget.KindJSON
		}
	default:
		return nil, fmt.Errorf("%w: message %d: unknown role %q (want user, assistant or tool)", ErrInvalidMessage, i, m.Role)
	}
	if b.Len() > 0 || m.Role == RoleAssistant {
		out = append(out, budget.Section{Name: name, Class: budget.ClassMessage, Kind: kind, Text: b.String(), Frozen: true})
	}
	return out, nil
}

package budget

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// This file reads what a session sends as sections to measure: [Sections]
// for a live session's latest request, [transcriptOf] and
// [parseTranscript] for a recorded conversation. Both describe a message
// with messageSections, so a session measured live and the same messages
// saved and replayed count the same tokens. Accounting sits above the
// session: package request never imports budget.

// Sections describes the session's latest request as sections, in request
// order: the system texts, each exposed tool (name and rendered
// description as prose, schema as JSON), the tool_search index as its own
// section, then every message so far with the host blocks it was sent with
// (a session with [request.Config.DropMessages] keeps no messages: its
// history is one section, the messages as encoded, not frozen).
// tool_search and defer_execute are [ClassEntry]. The deferred tools of a
// native search mode are left out: they are sent with defer_loading, and
// the provider keeps them out of the model's context until its search
// loads them. Every section is frozen, so measuring the next turn with the
// same [Counter] tokenizes only the new messages:
//
//	m := counter.Measure(budget.Sections(sess))
func Sections(s *request.Session) []Section {
	var out []Section
	f := s.Frozen()
	for _, text := range f.System {
		out = append(out, Section{Name: "system", Class: ClassSystem, Kind: KindProse, Text: text, Frozen: true})
	}
	if f.Index != "" {
		// In tool_search's description (Anthropic) or in the system
		// instructions (OpenAI, which caps descriptions at 1,024).
		out = append(out, Section{Name: "index", Class: ClassIndex, Kind: KindProse, Text: f.Index, Frozen: true})
	}
	for _, t := range f.Tools {
		if t.Deferred {
			continue
		}
		class, desc := ClassTool, t.Description
		switch t.Name {
		case registry.ToolSearchName:
			class = ClassEntry
			desc = strings.TrimSuffix(desc, f.Index)
		case registry.DeferExecuteName:
			class = ClassEntry
		}
		out = append(out,
			Section{Name: t.Name, Class: class, Kind: KindProse, Text: t.Name + "\n" + desc, Frozen: true},
			Section{Name: t.Name, Class: class, Kind: KindJSON, Text: string(t.Schema), Frozen: true})
	}
	msgs := s.Messages()
	for i, m := range msgs {
		secs, _ := messageSections(i, &m) // a session's history is valid
		out = append(out, secs...)
	}
	if len(msgs) == 0 {
		if h := sentHistory(s); len(h) > 0 {
			// The session dropped its messages (Config.DropMessages): what
			// is left is the history as encoded, measured as the JSON sent.
			out = append(out, Section{Name: "messages", Class: ClassMessage, Kind: KindJSON, Text: string(h)})
		}
	}
	return out
}

// sentHistory returns the encoded messages of the session's next request
// body, without its prefix and closing: the history a session that dropped
// its neutral messages still sends. A request with an empty turn changes
// nothing in the session.
func sentHistory(s *request.Session) []byte {
	prefix := s.Prefix()
	body, err := s.AppendRequest(nil, request.Turn{})
	if err != nil || len(body) < len(prefix)+2 || !bytes.Equal(body[:len(prefix)], prefix) {
		return nil // no messages yet, or SetView moved the prefix meanwhile
	}
	return bytes.TrimPrefix(body[len(prefix):len(body)-2], []byte(","))
}

// transcriptOf reduces a conversation in request's message form — what
// [request.Session.Messages] returns, with its blocks and native parts — to
// what [taskCost] replays: one frozen section per message, its host
// blocks before it as [ClassInjection] sections, and which sections the
// model wrote. An error wraps [request.ErrInvalidMessage] and names the
// message.
func transcriptOf(name string, msgs []request.Message) (*transcript, error) {
	tr := &transcript{Name: name}
	for i := range msgs {
		secs, err := messageSections(i, &msgs[i])
		if err != nil {
			return nil, err
		}
		for j, sec := range secs {
			tr.Messages = append(tr.Messages, sec)
			// Blocks come first: the message's own section is the last.
			tr.ByModel = append(tr.ByModel, j == len(secs)-1 && msgs[i].Role == request.RoleAssistant)
		}
		tr.ToolCalls += len(msgs[i].ToolCalls)
	}
	return tr, nil
}

// parseTranscript parses a transcript file — a JSON array of
// [request.Message], as json.Marshal writes [request.Session.Messages] —
// and reduces it with [transcriptOf]. Unknown fields are an error, so that
// a misspelt key is not measured as an empty message.
func parseTranscript(name string, data []byte) (*transcript, error) {
	var msgs []request.Message
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msgs); err != nil {
		return nil, fmt.Errorf("%w: transcript %s: want a JSON array of messages: %w", request.ErrInvalidMessage, name, err)
	}
	return transcriptOf(name, msgs)
}

// messageSections describes message i: each host block (an injection),
// then the message itself — its native parts, text and tool calls (name,
// then arguments as sent: compact, {} when empty) — rated as JSON when it
// carries calls or native parts or its text is JSON. The message's own
// section is left out when empty, except for an assistant message, which
// stands for a model request.
func messageSections(i int, m *request.Message) ([]Section, error) {
	name := "message " + strconv.Itoa(i)
	var out []Section
	for _, b := range m.Blocks {
		out = append(out, Section{Name: name, Class: ClassInjection, Kind: KindProse, Text: b, Frozen: true})
	}
	var b strings.Builder
	kind := KindProse
	switch m.Role {
	case request.RoleUser, request.RoleTool:
		b.WriteString(m.Text)
		if json.Valid([]byte(m.Text)) && strings.ContainsAny(m.Text, "{[") {
			kind = KindJSON
		}
	case request.RoleAssistant:
		if err := assistantText(&b, i, m); err != nil {
			return nil, err
		}
		if len(m.Native) > 0 || len(m.ToolCalls) > 0 {
			kind = KindJSON
		}
	default:
		return nil, fmt.Errorf("%w: message %d: unknown role %q (want user, assistant or tool)", request.ErrInvalidMessage, i, m.Role)
	}
	if b.Len() > 0 || m.Role == request.RoleAssistant {
		out = append(out, Section{Name: name, Class: ClassMessage, Kind: kind, Text: b.String(), Frozen: true})
	}
	return out, nil
}

// assistantText writes what an assistant message sends: its native parts
// (compact), its text, then each call's name and arguments (compact, {}
// when empty).
func assistantText(b *strings.Builder, i int, m *request.Message) error {
	var c bytes.Buffer
	for _, p := range m.Native {
		c.Reset()
		if err := json.Compact(&c, p); err != nil || c.Len() == 0 || c.Bytes()[0] != '{' {
			return fmt.Errorf("%w: message %d: a native part must be one JSON object", request.ErrInvalidMessage, i)
		}
		b.Write(c.Bytes())
	}
	b.WriteString(m.Text)
	for _, call := range m.ToolCalls {
		if call.Name == "" {
			return fmt.Errorf("%w: message %d: a tool call needs a name", request.ErrInvalidMessage, i)
		}
		b.WriteString(call.Name)
		args := bytes.TrimSpace(call.Arguments)
		if len(args) == 0 || string(args) == "null" {
			b.WriteString("{}")
			continue
		}
		c.Reset()
		if !utf8.Valid(args) || args[0] != '{' || json.Compact(&c, args) != nil {
			return fmt.Errorf("%w: message %d: call %q: arguments must be a JSON object", request.ErrInvalidMessage, i, call.Name)
		}
		b.Write(c.Bytes())
	}
	return nil
}

// AccountFor is the savings account of a session: its own plan, the entry
// tools exactly as it sends them (tool_search's description without the
// index, which the account counts on a line of its own) and its own index,
// so the account and the requests cannot disagree about search options or
// session variables. counter may be nil, as in [AccountOptions].
//
// The account follows the session's live set (request.Session.LiveTools):
// tools that arrived through Sync count as deferred ones would
// (ArrivedChars, saved), frozen tools that left as what an all-resident
// request would no longer carry (RemovedChars), and the Sync announcements
// placed so far as a cost (AnnouncedChars); all three are in NetSaving and
// in the token figures. Take the account again after a Sync to see them.
func AccountFor(s *request.Session, counter *Counter) (*Account, error) {
	f := s.Frozen()
	var entry []*registry.Tool
	for _, t := range f.Tools {
		switch t.Name {
		case registry.ToolSearchName:
			desc := strings.TrimSuffix(t.Description, f.Index)
			entry = append(entry, &registry.Tool{Name: t.Name, Description: desc, RawSchema: t.Schema})
		case registry.DeferExecuteName:
			entry = append(entry, &registry.Tool{Name: t.Name, Description: t.Description, RawSchema: t.Schema})
		}
	}
	a, err := NewAccount(s.Plan(), &AccountOptions{Counter: counter, Entry: entry, Index: f.Index})
	if err != nil {
		return nil, err
	}
	arrived, removed, announced := s.LiveTools()
	if counter == nil {
		counter, _ = NewCounter(encodingEstimate)
	}
	a.addLive(counter, arrived, removed, announced)
	return a, nil
}

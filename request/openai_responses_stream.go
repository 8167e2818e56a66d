package request

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

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
			rep.Message.ReplyID = rep.ID
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

func (s *Stream) responsesReply() (Reply, error) {
	if s.final == nil {
		return Reply{}, replyError("stream", "no final response")
	}
	return *s.final, nil
}

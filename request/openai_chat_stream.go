package request

import (
	"encoding/json"
	"fmt"
)

// streamCall is a Chat Completions tool call being assembled.
type streamCall struct {
	index    int
	id, name string
	args     []byte
}

func (s *Stream) chatEvent(name string, data []byte) error {
	var ch struct {
		ID      string          `json:"id"`
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
	if s.id == "" {
		s.id = ch.ID
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
	rep, err := finishReply(&b, "stream", s.stop, s.usage)
	return identified(rep, err, s.id, nil)
}

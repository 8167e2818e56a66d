package request

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

func (s *Stream) anthropicEvent(name string, data []byte) error {
	var ev struct {
		Message *struct {
			ID          string          `json:"id"`
			Usage       *anthropicUsage `json:"usage"`
			Diagnostics json.RawMessage `json:"diagnostics"`
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
		d, err := anthropicDiagnosis("message_start.message", ev.Message.Diagnostics)
		if err != nil {
			return s.eventError(name, "%v", err)
		}
		s.id, s.diag = ev.Message.ID, d
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
	rep, err := finishReply(&rb, "stream", s.stop, s.usage)
	return identified(rep, err, s.id, s.diag)
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

package request

import (
	"bytes"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
)

// chatEncoder is OpenAI Chat Completions: the system texts as one system
// message, no native tool search, no native parts, at most
// [wire.MaxChatTools] tools.
type chatEncoder struct{}

var chatTraits = traits{
	narrow: &narrowing{key: "tool_choice", none: `"none"`, list: func(b []byte, names []string, _ bool) []byte {
		// openai-go v3.99.0 ChatCompletionAllowedToolChoiceParam.
		b = append(b, `{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[`...)
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"function","function":{"name":`...)
			b = append(jsonx.AppendString(b, n), "}}"...)
		}
		return append(b, "]}}"...)
	}},
	capsDescriptions: true,
	strictFunctions:  true,
	maxTools:         wire.MaxChatTools,
	callIDOK:         toolname.ChatCallIDOK,
}

func (chatEncoder) traits() *traits { return &chatTraits }

func (chatEncoder) prefix(b []byte, cfg *Config, sys []string, tools []frozenTool) (_ []byte, elem bool) {
	b = appendToolsArray(b, tools, "", func(b []byte, t *frozenTool) []byte {
		b = appendFunction(append(b, `{"type":"function","function":{`...), t)
		if t.Strict {
			b = append(b, `,"strict":true`...)
		}
		return append(b, "}}"...)
	})
	b = append(b, `,"messages":[`...)
	if len(sys) > 0 {
		b = append(b, `{"role":"system","content":`...)
		b = jsonx.AppendString(b, strings.Join(sys, "\n\n"))
		b = append(b, '}')
		elem = true
	}
	return b, elem
}

func (chatEncoder) checkRules(*Config) error { return nil }

func (chatEncoder) toolSchema(schema []byte) []byte { return schema }

func (chatEncoder) checkOrder(*Message, Role, int) error { return nil }

// appendMessage appends m as one Chat Completions message: a user's text
// (a plain string, or text parts with blocks), an assistant's text and
// tool_calls, a tool result.
func (chatEncoder) appendMessage(b []byte, m *Message, _ Role, c *msgContext) []byte {
	b = sep(b)
	switch m.Role {
	case RoleUser:
		b = append(b, `{"role":"user","content":`...)
		if len(m.Blocks) == 0 {
			b = appendQuery(b, m.Text)
		} else {
			b = append(b, '[')
			b = appendTextParts(b, "text", m)
			b = append(b, ']')
		}
		return append(b, '}')
	case RoleAssistant:
		b = append(b, `{"role":"assistant","content":`...)
		if text := assistantText(m); text == "" {
			b = append(b, "null"...)
		} else {
			b = jsonx.AppendString(b, text)
		}
		if len(m.ToolCalls) > 0 {
			b = append(b, `,"tool_calls":[`...)
			for i := range m.ToolCalls {
				tc := &m.ToolCalls[i]
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"id":`...)
				b = jsonx.AppendString(b, chatTraits.callID(tc.ID))
				b = append(b, `,"type":"function","function":{"name":`...)
				b = jsonx.AppendString(b, tc.Name)
				b = append(b, `,"arguments":`...)
				b = appendBytesString(b, c.args(tc.Arguments))
				b = append(b, "}}"...)
			}
			b = append(b, ']')
		}
		return append(b, '}')
	default:
		b = append(b, `{"role":"tool","tool_call_id":`...)
		b = jsonx.AppendString(b, chatTraits.callID(m.CallID))
		b = append(b, `,"content":`...)
		b = appendResultText(b, m)
		return append(b, '}')
	}
}

func (chatEncoder) appendHistory(dst, msgs []byte) []byte { return append(dst, msgs...) }

func (chatEncoder) historyShaped([]byte) bool { return true }

func (chatEncoder) decodeReply(body []byte) (Reply, error) { return decodeChat(body) }

// Chat Completions chunks carry no type (an error comes as {"error": …})
// and the stream ends with a bare [DONE].
func (chatEncoder) streamEvent(s *Stream, name string, data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
		s.done = true
		return nil
	}
	return s.chatEvent(name, data)
}

func (chatEncoder) streamReply(s *Stream) (Reply, error) { return s.chatReply() }

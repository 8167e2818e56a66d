package request

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
)

// geminiEncoder is the Gemini API's generateContent body (Google AI and
// Vertex AI): the model in the URL, not the body; the system texts as the
// parts of systemInstruction; the tools as one tools[] entry of
// functionDeclarations, each schema in parametersJsonSchema (full JSON
// Schema; "parameters" takes an OpenAPI subset only); contents of roles
// user and model, consecutive user-side messages (text, function
// responses) joined into one content. Gemini has no tool search and no
// defer_loading of its own: deferral is Portable (tool_search and
// defer_execute), the index in tool_search's description, since Gemini
// documents no cap on descriptions. docs/providers.md cites every shape.
type geminiEncoder struct{}

var geminiTraits = traits{
	// genai v1.77.0 FunctionCallingConfig: allowedFunctionNames only with
	// mode ANY (a call is forced) or VALIDATED (a call or text): VALIDATED.
	narrow: &narrowing{key: "toolConfig", none: `{"functionCallingConfig":{"mode":"NONE"}}`, list: func(b []byte, names []string, _ bool) []byte {
		b = append(b, `{"functionCallingConfig":{"mode":"VALIDATED","allowedFunctionNames":[`...)
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, n)
		}
		return append(b, "]}}"...)
	}},
	native:      true,
	maxTools:    wire.MaxGeminiTools,
	callIDOK:    toolname.GeminiCallIDOK,
	modelInPath: true,
	nameOK:      toolname.GeminiValid,
}

func (geminiEncoder) traits() *traits { return &geminiTraits }

// geminiMember appends a top-level member m ("key":value-opening) to b,
// the body so far, after a comma unless b is still "{".
func geminiMember(b []byte, m string) []byte {
	if len(b) > 1 {
		b = append(b, ',')
	}
	return append(b, m...)
}

func (geminiEncoder) prefix(b []byte, _ *Config, sys []string, tools []frozenTool) ([]byte, bool) {
	if len(sys) > 0 {
		b = geminiMember(b, `"systemInstruction":{"parts":[`)
		for i, s := range sys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"text":`...)
			b = jsonx.AppendString(b, s)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	if len(tools) > 0 {
		b = geminiMember(b, `"tools":[{"functionDeclarations":[`)
		for i := range tools {
			t := &tools[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsonx.AppendString(b, t.Name)
			b = append(b, `,"description":`...)
			b = jsonx.AppendString(b, t.Description)
			b = append(b, `,"parametersJsonSchema":`...)
			b = append(b, t.Schema...)
			b = append(b, '}')
		}
		b = append(b, "]}]"...)
	}
	return geminiMember(b, `"contents":[`), false
}

func (geminiEncoder) checkRules(*Config) error { return nil }

// toolSchema keeps the schema whole: parametersJsonSchema takes JSON
// Schema as it is, where "parameters" would refuse what its OpenAPI
// subset lacks ($ref, const, additionalProperties ...).
func (geminiEncoder) toolSchema(schema []byte) []byte { return schema }

func (geminiEncoder) checkOrder(m *Message, last Role, at int) error {
	switch m.Role {
	case RoleUser:
		if last == RoleUser {
			return fmt.Errorf("%w: messages[%d]: two user messages in a row; toolshelf sends Gemini alternating user and model contents: merge them or put an assistant message between", errSequence, at)
		}
	case RoleAssistant:
		if last == "" {
			return fmt.Errorf("%w: messages[%d]: Gemini conversations start with a user content, got assistant", errSequence, at)
		}
		if last == RoleAssistant {
			return fmt.Errorf("%w: messages[%d]: two assistant messages in a row; toolshelf sends Gemini alternating user and model contents", errSequence, at)
		}
	}
	return nil
}

// appendMessage appends m as a content: a user message's text parts, a
// model message's parts, a functionResponse part; a user-side message
// after another joins its content's parts (a turn's function responses
// travel together, as Gemini wants them).
func (geminiEncoder) appendMessage(b []byte, m *Message, last Role, c *msgContext) []byte {
	switch {
	case m.Role != RoleAssistant && (last == RoleUser || last == RoleTool):
		// Reopen the last user content: drop its closing "]}".
		b = append(b[:len(b)-2], ',')
	case m.Role == RoleAssistant:
		b = append(sep(b), `{"role":"model","parts":[`...)
	default:
		b = append(sep(b), `{"role":"user","parts":[`...)
	}
	switch m.Role {
	case RoleUser:
		b = appendGeminiText(b, m)
	case RoleAssistant:
		b = appendGeminiModel(b, m, c)
	default:
		b = appendGeminiResult(b, m, c)
	}
	return append(b, "]}"...)
}

// appendGeminiText appends a user message's blocks, then its text wrapped
// in <user_query>, as text parts.
func appendGeminiText(b []byte, m *Message) []byte {
	for i, blk := range m.Blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"text":`...)
		b = jsonx.AppendString(b, blk)
		b = append(b, '}')
	}
	if m.Text != "" {
		if len(m.Blocks) > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"text":`...)
		b = appendQuery(b, m.Text)
		b = append(b, '}')
	}
	return b
}

// geminiSigs are the thought signatures a model message's native parts
// lend to its text and function calls (see [appendGeminiModel]).
type geminiSigs struct {
	text  json.RawMessage // the last signed text part's signature
	calls []geminiSig
}

type geminiSig struct {
	id  string
	sig json.RawMessage
}

func (s *geminiSigs) call(id string) json.RawMessage {
	for _, c := range s.calls {
		if c.id == id {
			return c.sig
		}
	}
	return nil
}

// appendGeminiModel appends a model message's parts: its native parts
// verbatim, in order (thoughts, code execution, inline data ...), then its
// text as one text part, then its function calls. A native part that is
// a function call or a (non-thought) text part is the carrier of a thought
// signature: [DecodeReply] keeps it in Native so that the signature goes
// back on its own part — the call of the same id, the text — and it is
// not sent a second time. Gemini refuses a current-turn function call
// without the signature it came with.
func appendGeminiModel(b []byte, m *Message, c *msgContext) []byte {
	start := len(b)
	var sigs geminiSigs
	for _, p := range m.Native {
		if sigs.carrier(p) {
			continue
		}
		if len(b) > start {
			b = append(b, ',')
		}
		b = jsonx.AppendCompact(b, p)
	}
	if text := assistantText(m); text != "" || (len(b) == start && len(m.ToolCalls) == 0) {
		if text == "" {
			text = emptyText
		}
		if len(b) > start {
			b = append(b, ',')
		}
		b = append(b, `{"text":`...)
		b = jsonx.AppendString(b, text)
		if sigs.text != nil {
			b = append(b, `,"thoughtSignature":`...)
			b = jsonx.AppendCompact(b, sigs.text)
		}
		b = append(b, '}')
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		if len(b) > start {
			b = append(b, ',')
		}
		b = append(b, `{"functionCall":{"id":`...)
		b = jsonx.AppendString(b, geminiTraits.callID(tc.ID))
		b = append(b, `,"name":`...)
		b = jsonx.AppendString(b, tc.Name)
		b = append(b, `,"args":`...)
		b = append(b, c.args(tc.Arguments)...)
		b = append(b, '}')
		if sig := sigs.call(tc.ID); sig != nil {
			b = append(b, `,"thoughtSignature":`...)
			b = jsonx.AppendCompact(b, sig)
		}
		b = append(b, '}')
	}
	return b
}

// carrier reports whether native part p is a function call or a
// non-thought text part, and records its thought signature.
func (s *geminiSigs) carrier(p json.RawMessage) bool {
	var part struct {
		Text         *string         `json:"text"`
		Thought      bool            `json:"thought"`
		Signature    json.RawMessage `json:"thoughtSignature"`
		FunctionCall *struct {
			ID string `json:"id"`
		} `json:"functionCall"`
	}
	if json.Unmarshal(p, &part) != nil {
		return false
	}
	switch {
	case part.FunctionCall != nil:
		if len(part.Signature) > 0 {
			s.calls = append(s.calls, geminiSig{id: part.FunctionCall.ID, sig: part.Signature})
		}
		return true
	case part.Text != nil && !part.Thought:
		if len(part.Signature) > 0 {
			s.text = part.Signature
		}
		return true
	}
	return false
}

// appendGeminiResult appends a tool result as a functionResponse part:
// the call's id and name, and the result's text as "output", or as
// "error" for a failed result (the keys Gemini documents for a function's
// output and its error).
func appendGeminiResult(b []byte, m *Message, c *msgContext) []byte {
	id := geminiTraits.callID(m.CallID)
	b = append(b, `{"functionResponse":{"id":`...)
	b = jsonx.AppendString(b, id)
	b = append(b, `,"name":`...)
	b = appendGeminiCallName(b, id, c)
	if m.IsError {
		b = append(b, `,"response":{"error":`...)
	} else {
		b = append(b, `,"response":{"output":`...)
	}
	b = appendToolResult(b, resultText(m))
	return append(b, "}}}"...)
}

// appendGeminiCallName appends the name of the call with sent id id, as
// the JSON string the model content carries: functionResponse needs it,
// and a tool result has only the call's id. The call is found in the
// encoded history itself (the history checked that the result answers an
// open call of an earlier model content), so a restored session, whose
// history is its encoded bytes, finds it too.
func appendGeminiCallName(b []byte, id string, c *msgContext) []byte {
	c.scratch = append(c.scratch[:0], `{"functionCall":{"id":`...)
	c.scratch = jsonx.AppendString(c.scratch, id)
	c.scratch = append(c.scratch, `,"name":`...)
	if i := bytes.LastIndex(b, c.scratch); i >= 0 {
		name := b[i+len(c.scratch):]
		if end := bytes.IndexByte(name[1:], '"'); name[0] == '"' && end >= 0 {
			// Names are registry names or checked call names
			// ([toolname.Valid]): no escapes inside the string.
			return append(b, name[:end+2]...)
		}
	}
	return append(b, `""`...)
}

func (geminiEncoder) appendHistory(dst, msgs []byte) []byte { return append(dst, msgs...) }

// A Gemini history is a list of contents whose parts are a list.
func (geminiEncoder) historyShaped(buf []byte) bool { return bytes.HasSuffix(buf, []byte("]}")) }

func (geminiEncoder) decodeReply(body []byte) (Reply, error) { return decodeGemini(body) }

func (geminiEncoder) streamEvent(s *Stream, name string, data []byte) error {
	return s.geminiEvent(name, data)
}

func (geminiEncoder) streamReply(s *Stream) (Reply, error) { return s.geminiReply() }

package replytest

import (
	"encoding/json"
	"fmt"

	"github.com/toolshelf/toolshelf/request"
)

// geminiCarrier reports whether native part p carries a function call or
// (non-thought) text, as request.DecodeReply keeps a signed one, and
// returns its thoughtSignature and the call's id.
func geminiCarrier(p json.RawMessage) (carrier bool, sig json.RawMessage, id string) {
	var part struct {
		Text         *string         `json:"text"`
		Thought      bool            `json:"thought"`
		Signature    json.RawMessage `json:"thoughtSignature"`
		FunctionCall *struct {
			ID string `json:"id"`
		} `json:"functionCall"`
	}
	if json.Unmarshal(p, &part) != nil {
		return false, nil, ""
	}
	switch {
	case part.FunctionCall != nil:
		return true, part.Signature, part.FunctionCall.ID
	case part.Text != nil && !part.Thought:
		return true, part.Signature, ""
	}
	return false, nil, ""
}

// gemini writes m as a GenerateContentResponse and as the same reply
// streamed: native parts first, then the text (in pieces when streamed),
// then the function calls, each whole, as Gemini streams them. A signed
// call or text (a carrier in m.Native) is written with its signature on
// its own part.
func gemini(n int, m request.Message, u request.Usage) ([]byte, []byte) {
	var native []json.RawMessage
	var textSig json.RawMessage
	callSig := map[string]json.RawMessage{}
	for _, p := range m.Native {
		carrier, sig, id := geminiCarrier(p)
		switch {
		case !carrier:
			native = append(native, compact(p))
		case id != "":
			callSig[id] = sig
		default:
			textSig = sig
		}
	}
	textPart := func(text string, sig json.RawMessage) json.RawMessage {
		if sig != nil {
			return obj("text", text, "thoughtSignature", sig)
		}
		return obj("text", text)
	}
	var calls []json.RawMessage
	for _, c := range m.ToolCalls {
		fc := obj("id", c.ID, "name", c.Name, "args", compact(argsOf(c)))
		if sig := callSig[c.ID]; sig != nil {
			calls = append(calls, obj("functionCall", fc, "thoughtSignature", sig))
		} else {
			calls = append(calls, obj("functionCall", fc))
		}
	}
	usage := obj("promptTokenCount", u.InputTokens, "candidatesTokenCount", u.OutputTokens,
		"totalTokenCount", u.InputTokens+u.OutputTokens, "cachedContentTokenCount", u.CacheReadTokens)
	id := fmt.Sprintf("replytest-%02d", n)
	const model = "gemini-2.5-flash"
	response := func(parts []json.RawMessage, finish string, usage json.RawMessage) json.RawMessage {
		cand := []any{"content", obj("parts", arr(parts...), "role", "model")}
		if finish != "" {
			cand = append(cand, "finishReason", finish)
		}
		cand = append(cand, "index", 0)
		kv := []any{"candidates", arr(obj(cand...))}
		if usage != nil {
			kv = append(kv, "usageMetadata", usage)
		}
		return obj(append(kv, "modelVersion", model, "responseId", id)...)
	}
	var all []json.RawMessage
	all = append(all, native...)
	if m.Text != "" {
		all = append(all, textPart(m.Text, textSig))
	}
	all = append(all, calls...)
	whole := response(all, "STOP", usage)

	var s sse
	if len(native) > 0 {
		s.event("", response(native, "", nil))
	}
	if m.Text != "" {
		pieces := chunks(m.Text, 24)
		for i, c := range pieces {
			var sig json.RawMessage
			if i == len(pieces)-1 {
				sig = textSig
			}
			s.event("", response([]json.RawMessage{textPart(c, sig)}, "", nil))
		}
	}
	for _, c := range calls {
		s.event("", response([]json.RawMessage{c}, "", nil))
	}
	s.event("", response([]json.RawMessage{obj("text", "")}, "STOP", usage))
	return whole, s.b.Bytes()
}

package request

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

// geminiUsage is a GenerateContentResponse's usageMetadata.
type geminiUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
}

// usage returns u in the common form: the prompt (which includes the
// cached content, as Gemini documents promptTokenCount) and the tool-use
// prompt are input; the candidates and the thoughts, which Gemini counts
// apart, are output; cachedContentTokenCount is the cache read. Gemini
// reports no cache write.
func (u *geminiUsage) usage(where string) (Usage, error) {
	if u == nil {
		return Usage{}, nil
	}
	in, err := sumTokens(where+".usageMetadata", u.PromptTokenCount, u.ToolUsePromptTokenCount)
	if err != nil {
		return Usage{}, err
	}
	out, err := sumTokens(where+".usageMetadata", u.CandidatesTokenCount, u.ThoughtsTokenCount)
	if err != nil {
		return Usage{}, err
	}
	return Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: u.CachedContentTokenCount}, nil
}

// geminiResponse is a GenerateContentResponse: the whole reply of
// generateContent, or one chunk of streamGenerateContent.
type geminiResponse struct {
	Error      json.RawMessage `json:"error"`
	Candidates []struct {
		Content *struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
		Index        int    `json:"index"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *geminiUsage `json:"usageMetadata"`
	ResponseID    string       `json:"responseId"`
}

// geminiError turns a Google API error object ({"code","message",
// "status"}) into an error.
func geminiError(where string, raw json.RawMessage) error {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	}
	_ = json.Unmarshal(raw, &e)
	return replyError(where, "the provider reported an error (status %q, code %d): %.200s", e.Status, e.Code, e.Message)
}

// geminiReply assembles a reply from candidate 0's parts, whole or
// chunk by chunk: the session continues one candidate.
type geminiReply struct {
	b     replyBuilder
	calls int    // function calls seen, numbering those without an id
	id    string // responseId
	zero  bool   // candidate 0 was seen
}

// decode parses r and adds candidate 0's parts; where names r in errors.
// It returns candidate 0's finish reason.
func (g *geminiReply) add(where string, r *geminiResponse) (string, error) {
	if isObject(r.Error) {
		return "", geminiError(where+".error", r.Error)
	}
	if r.ResponseID != "" {
		g.id = r.ResponseID
	}
	if len(r.Candidates) == 0 {
		if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
			return "", replyError(where, "the prompt was blocked (promptFeedback.blockReason %.60q)", r.PromptFeedback.BlockReason)
		}
		return "", nil
	}
	// The session continues candidate 0, found by its index: a reply may
	// list its candidates in any order (candidateCount > 1).
	at := -1
	for i := range r.Candidates {
		if r.Candidates[i].Index != 0 {
			continue
		}
		if at >= 0 {
			return "", replyError(where, "candidates[%d] and candidates[%d] both have index 0", at, i)
		}
		at = i
	}
	if at < 0 {
		return "", nil // a chunk of another candidate only; a whole reply without candidate 0 is refused by decodeGemini
	}
	g.zero = true
	c := &r.Candidates[at]
	if c.Content != nil {
		if c.Content.Role != "" && c.Content.Role != "model" {
			return "", replyError(where, "candidates[%d].content.role %.40q, want model", at, c.Content.Role)
		}
		for i, p := range c.Content.Parts {
			if err := g.part(fmt.Sprintf("%s.candidates[%d].content.parts[%d]", where, at, i), p); err != nil {
				return "", err
			}
		}
	}
	return c.FinishReason, nil
}

// part adds one part: text (thought parts excepted) to the text, a
// functionCall to the tool calls, and — verbatim, in order — every other
// part to Native. A text or functionCall part that carries more than its
// text or call (a thoughtSignature) is kept in Native too, as the
// carrier the encoder takes the signature from.
func (g *geminiReply) part(where string, raw json.RawMessage) error {
	var p struct {
		Text         *string `json:"text"`
		Thought      bool    `json:"thought"`
		FunctionCall *struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
	}
	if !isObject(raw) {
		return replyError(where, "want a part object")
	}
	if err := unmarshalExact(raw, &p); err != nil {
		return replyError(where, "%v", err)
	}
	// Count the members without building them: most parts are plain
	// text, read above.
	n, thought := 0, false
	if err := jsonx.EachMember(raw, func(key, _ []byte) error {
		n++
		thought = thought || string(key) == "thought"
		return nil
	}); err != nil {
		return replyError(where, "%v", err)
	}
	// Every part that becomes a call or a native part counts, whatever
	// its shape: a plain functionCall as much as a signed one.
	if (p.FunctionCall != nil || n > 1 || p.Text == nil && n > 0) && len(g.b.m.Native)+len(g.b.m.ToolCalls) >= maxStreamParts {
		return replyError(where, "more than %d native parts and calls", maxStreamParts)
	}
	switch {
	case n == 0:
		return nil // an empty part says nothing, and Gemini refuses one sent back
	case p.FunctionCall != nil:
		fc := p.FunctionCall
		args := fc.Args
		if isObject(args) {
			args = jsonx.AppendCompact(nil, args)
		}
		id := fc.ID
		if id == "" {
			id = geminiCallID(g.id, g.calls, fc.Name, args)
		}
		g.calls++
		call, err := toolCall(where, id, fc.Name, args)
		if err != nil {
			return err
		}
		g.b.m.ToolCalls = append(g.b.m.ToolCalls, call)
		if n > 1 {
			ms, err := jsonx.Members(raw)
			if err != nil {
				return replyError(where, "%v", err)
			}
			if fc.ID == "" {
				// The carrier names its call by the id the call got.
				fm, err := jsonx.Members(jsonx.Get(ms, "functionCall"))
				if err != nil {
					return replyError(where, "functionCall: %v", err)
				}
				fm = append([]jsonx.Member{{Key: "id", Value: jsonx.AppendString(nil, id)}}, fm...)
				ms = setMember(ms, "functionCall", jsonx.AppendObject(nil, fm))
			}
			g.b.m.Native = append(g.b.m.Native, jsonx.AppendObject(nil, ms))
		}
	case p.Text != nil && !p.Thought:
		g.b.addText(*p.Text)
		if n > 1 && !(n == 2 && thought) {
			// The carrier keeps the signature, not the text: the text is
			// the message's, sent once, and a streamed reply (its text in
			// pieces) decodes as the whole one does.
			ms, err := jsonx.Members(raw)
			if err != nil {
				return replyError(where, "%v", err)
			}
			ms = setMember(ms, "text", []byte(`""`))
			g.b.m.Native = append(g.b.m.Native, jsonx.AppendObject(nil, ms))
		}
	default:
		g.b.m.Native = append(g.b.m.Native, json.RawMessage(jsonx.AppendCompact(nil, raw)))
	}
	return nil
}

// geminiCallID names a function call the model sent without an id (the
// Gemini API fills functionCall.id on some models only): "gemini-" and 24
// hex digits of SHA-256 over the response's id, the call's position among
// the reply's calls, its name and its compact arguments. It is the same
// for a reply decoded whole or streamed, and differs between responses.
func geminiCallID(responseID string, n int, name string, args []byte) string {
	h := sha256.New()
	h.Write([]byte(responseID))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, int64(n), 10))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(args)
	return "gemini-" + hex.EncodeToString(h.Sum(nil))[:24]
}

func decodeGemini(body []byte) (Reply, error) {
	var r geminiResponse
	if err := unmarshalExact(body, &r); err != nil {
		return Reply{}, replyError("GenerateContentResponse", "%v", err)
	}
	g := geminiReply{b: replyBuilder{m: Message{Role: RoleAssistant}}}
	stop, err := g.add("GenerateContentResponse", &r)
	if err != nil {
		return Reply{}, err
	}
	if len(r.Candidates) == 0 {
		return Reply{}, replyError("GenerateContentResponse", "no candidates")
	}
	if !g.zero {
		return Reply{}, replyError("GenerateContentResponse", "no candidate with index 0 among %d: the session continues candidate 0", len(r.Candidates))
	}
	u, err := r.UsageMetadata.usage("GenerateContentResponse")
	if err != nil {
		return Reply{}, err
	}
	rep, err := finishReply(&g.b, "GenerateContentResponse", stop, u)
	return identified(rep, err, g.id, nil)
}

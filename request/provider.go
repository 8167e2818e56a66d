package request

import (
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// An encoder is one provider's wire shape, in one file per provider
// (openai_chat.go, openai_responses.go, anthropic.go, gemini.go): its fixed facts
// ([traits]), how the prefix lays out the system texts and tools, the
// provider's own rules, how a message is encoded into the history, where
// the latest turn's cache breakpoint goes, and how a reply is decoded.
// Everything else — the frozen prefix, the history's bookkeeping, the
// cache, the session — is written once and calls the session's encoder;
// an encoder never calls back into the history.
type encoder interface {
	// traits returns the provider's fixed facts.
	traits() *traits
	// prefix appends the system texts sys, tools[] and the opening of the
	// messages (or input) array to b, which holds the model and the extra
	// fields; elem reports that the array already holds an element.
	prefix(b []byte, cfg *Config, sys []string, tools []frozenTool) (out []byte, elem bool)
	// checkRules refuses a configuration the provider refuses on every
	// request (see [wire.Rules]).
	checkRules(cfg *Config) error
	// toolSchema returns a tool's compact input schema as the provider
	// accepts it in tools[] (see [wire.Rules]); the dispatcher still
	// validates calls against the full schema.
	toolSchema(schema []byte) []byte
	// checkOrder applies the provider's own rules on the order of roles to
	// message at (m), the role before it being last ("" at the start).
	checkOrder(m *Message, last Role, at int) error
	// appendMessage appends checked message m, which follows a message of
	// role last ("" at the start), to msgs, the encoded messages so far
	// (comma-separated), and returns msgs. c holds what the encoding needs
	// beyond the message.
	appendMessage(msgs []byte, m *Message, last Role, c *msgContext) []byte
	// appendHistory appends the encoded messages to dst, which ends with
	// the prefix.
	appendHistory(dst, msgs []byte) []byte
	// historyShaped reports whether buf, a non-empty encoded history, has
	// the provider's outer shape (a restored store record is checked).
	historyShaped(buf []byte) bool
	// decodeReply decodes a whole response body (valid JSON).
	decodeReply(body []byte) (Reply, error)
	// streamEvent feeds one server-sent event to s.
	streamEvent(s *Stream, name string, data []byte) error
	// streamReply returns the reply s accumulated up to its terminal event.
	streamReply(s *Stream) (Reply, error)
}

// traits are a provider's fixed facts, as data: each provider's file
// declares its own.
type traits struct {
	// changes is the provider's native form of a live-set change
	// ([Config.NativeToolChanges]), nil when it has none.
	changes *nativeChanges
	// native: assistant messages may carry native parts.
	native bool
	// capsDescriptions: the provider limits a tool description to
	// [wire.MaxDescription] characters.
	capsDescriptions bool
	// strictFunctions: the provider takes "strict" on a function tool
	// ([Config.Strict]).
	strictFunctions bool
	// searchOutputCarriesTools: the answer to a client tool search carries
	// tool definitions (a Responses tool_search_output), so that it can
	// load a tool that is not in tools[]; an Anthropic tool_reference only
	// names a deferred entry of tools[].
	searchOutputCarriesTools bool
	// maxTools is the most entries the provider accepts in tools[], or 0
	// for no known limit.
	maxTools int
	// nativeSearch and regexSearch are the provider's own search tools for
	// the [Native] and [NativeRegex] modes as raw JSON, "" when it has none.
	nativeSearch, regexSearch string
	// callIDOK reports whether the provider accepts a call id as it is.
	callIDOK func(id string) bool
	// clientSearch: the provider has a reference form for a
	// client-executed tool search ([Client] mode).
	clientSearch bool
	// modelInPath: the model is named in the request's URL, not in the
	// body (Gemini), so the body has no "model" member.
	modelInPath bool
	// nameOK, when set, is the provider's own rule on a function name,
	// stricter than the registry's; nil accepts every registry name.
	nameOK func(name string) bool
	// diagnostics is the top-level field that asks for a cache diagnosis
	// ([Config.Diagnostics]) and its opening up to the previous reply's
	// id, "" when the provider has none; diagnosticsFirst: the field is
	// sent on the first turn too, with a null id.
	diagnosticsField, diagnostics string
	diagnosticsFirst              bool
	// narrow is the provider's native narrowing of tools[], nil when it
	// has none that keeps the cache (Anthropic: a changed tool_choice
	// invalidates the cached messages).
	narrow *narrowing
}

// A narrowing is a provider's native form of "the model may call only
// these tools of tools[]" (viewchange.go): key is the top-level member it
// sends after the messages, none its value when no tool is allowed, and
// list appends its value for the allowed names (search: the provider's
// own search tool stays allowed).
type narrowing struct {
	key, none string
	list      func(b []byte, names []string, search bool) []byte
}

// searchTool returns the provider's own search tool for a native mode as
// raw JSON, or "" when the provider has none for it.
func (t *traits) searchTool(mode ToolSearch) string {
	switch mode {
	case Native:
		return t.nativeSearch
	case NativeRegex:
		return t.regexSearch
	}
	return ""
}

// callID returns call id id as it is sent: id itself when the provider
// accepts it, else its [toolname.CallIDAlias]. It is a pure function of
// id, so a call and its result, encoded on different turns or after a
// restore, carry the same bytes.
func (t *traits) callID(id string) string {
	if t.callIDOK(id) {
		return id
	}
	return toolname.CallIDAlias(id)
}

// encoderFor returns the encoder of provider p, and false for a provider
// the library does not know. It is the one place that branches on the
// provider.
func encoderFor(p Provider) (encoder, bool) {
	switch p {
	case OpenAIChat:
		return chatEncoder{}, true
	case OpenAIResponses:
		return responsesEncoder{}, true
	case Anthropic:
		return anthropicEncoder{}, true
	case Gemini:
		return geminiEncoder{}, true
	}
	return nil, false
}

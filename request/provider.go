package request

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/toolshelf/toolshelf/internal/toolname"

	"github.com/toolshelf/toolshelf/internal/jsonx"
	"github.com/toolshelf/toolshelf/internal/openai"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request/wire"
)

// An encoder is one provider's wire shape: how the prefix lays out the
// system texts and tools, which search tool a native mode sends, the
// provider's own rules on message order, how a message is appended to the
// encoded history, and where the latest turn's cache breakpoint goes.
// Everything else — the frozen prefix, the history, the cache, the
// session — is written once and calls the session's encoder.
type encoder interface {
	// prefix appends the system texts sys, tools[] and the opening of the
	// messages (or input) array to b, which holds the model and the extra
	// fields; elem reports that the array already holds an element.
	prefix(b []byte, cfg *Config, sys []string, tools []frozenTool) (out []byte, elem bool)
	// searchTool returns the provider's own search tool for a native mode
	// as raw JSON, or "" when the provider has none for it.
	searchTool(mode ToolSearch) string
	// hasNative reports whether assistant messages may carry native parts.
	hasNative() bool
	// checkOrder applies the provider's own rules on the order of roles to
	// message at (m), the role before it being last ("" at the start).
	checkOrder(m *Message, last Role, at int) error
	// add appends the checked message m to h's encoded messages.
	add(h *history, m *Message)
	// appendHistory appends the encoded messages to dst, which ends with
	// the prefix.
	appendHistory(dst, msgs []byte) []byte
	// historyShaped reports whether buf, a non-empty encoded history, has
	// the provider's outer shape (a restored store record is checked).
	historyShaped(buf []byte) bool
	// capsDescriptions reports whether the provider limits a tool
	// description to [wire.MaxDescription] characters.
	capsDescriptions() bool
	// strictFunctions reports whether the provider takes "strict" on a
	// function tool ([Config.Strict]).
	strictFunctions() bool
	// checkRules refuses a configuration the provider refuses on every
	// request (see [wire.Rules]).
	checkRules(cfg *Config) error
	// searchOutputCarriesTools reports whether the answer to a client tool
	// search carries tool definitions (a Responses tool_search_output),
	// so that it can load a tool that is not in tools[]; an Anthropic
	// tool_reference only names a deferred entry of tools[].
	searchOutputCarriesTools() bool
	// maxTools is the most entries the provider accepts in tools[], or 0
	// for no known limit.
	maxTools() int
	// toolSchema returns a tool's compact input schema as the provider
	// accepts it in tools[] (see [wire.Rules]); the dispatcher still
	// validates calls against the full schema.
	toolSchema(schema []byte) []byte
	// callID returns call id id as it is sent: id itself when the
	// provider accepts it, else its [toolname.CallIDAlias]. It is a pure
	// function of id, so a call and its result, encoded on different
	// turns or after a restore, carry the same bytes.
	callID(id string) string
	// decodeReply decodes a whole response body (valid JSON).
	decodeReply(body []byte) (Reply, error)
	// streamEvent feeds one server-sent event to s.
	streamEvent(s *Stream, name string, data []byte) error
	// streamReply returns the reply s accumulated up to its terminal event.
	streamReply(s *Stream) (Reply, error)
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
	}
	return nil, false
}

// appendFunction appends the members the OpenAI APIs share for a function
// tool: name, description and parameters.
func appendFunction(b []byte, t *frozenTool) []byte {
	b = append(b, `"name":`...)
	b = jsonx.AppendString(b, t.Name)
	b = append(b, `,"description":`...)
	b = jsonx.AppendString(b, t.Description)
	b = append(b, `,"parameters":`...)
	return append(b, t.Schema...)
}

// chatEncoder is OpenAI Chat Completions: the system texts as one system
// message, no native tool search.
type chatEncoder struct{}

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

func (chatEncoder) searchTool(ToolSearch) string { return "" }

func (chatEncoder) hasNative() bool { return false }

func (chatEncoder) checkOrder(*Message, Role, int) error { return nil }

func (chatEncoder) add(h *history, m *Message) {
	h.sep()
	h.buf = h.chat(h.buf, m)
}

func (chatEncoder) appendHistory(dst, msgs []byte) []byte { return append(dst, msgs...) }

// responsesEncoder is the OpenAI Responses API: the system texts as
// instructions, the hosted tool_search as its native search.
type responsesEncoder struct{}

func (responsesEncoder) prefix(b []byte, cfg *Config, sys []string, tools []frozenTool) ([]byte, bool) {
	if len(sys) > 0 {
		b = append(b, `,"instructions":`...)
		b = jsonx.AppendString(b, strings.Join(sys, "\n\n"))
	}
	client := cfg.searchMode() == Client
	b = appendToolsArray(b, tools, searchTool(cfg), func(b []byte, t *frozenTool) []byte {
		if client && t.Name == registry.ToolSearchName {
			return appendClientSearch(b, t)
		}
		b = appendFunction(append(b, `{"type":"function",`...), t)
		// Without "strict" the Responses API normalizes the schema
		// into strict mode, making optional parameters required.
		if t.Strict {
			b = append(b, `,"strict":true`...)
		} else {
			b = append(b, `,"strict":false`...)
		}
		if t.Deferred {
			b = append(b, deferLoading...)
		}
		return append(b, '}')
	})
	b = append(b, `,"input":[`...)
	return b, false
}

func (responsesEncoder) searchTool(mode ToolSearch) string {
	if mode == Native {
		return `{"type":"tool_search"}`
	}
	return ""
}

func (responsesEncoder) hasNative() bool { return true }

func (responsesEncoder) checkOrder(*Message, Role, int) error { return nil }

func (responsesEncoder) add(h *history, m *Message) {
	h.sep()
	h.buf = h.responses(h.buf, m)
}

func (responsesEncoder) appendHistory(dst, msgs []byte) []byte { return append(dst, msgs...) }

// anthropicEncoder is Anthropic Messages: system blocks and tools with cache
// breakpoints, alternating roles (consecutive user-side messages merge into
// one), BM25 and regex native tool search.
type anthropicEncoder struct{}

func (anthropicEncoder) prefix(b []byte, cfg *Config, sys []string, tools []frozenTool) ([]byte, bool) {
	if len(sys) > 0 {
		b = append(b, `,"system":[`...)
		for i, s := range sys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"text","text":`...)
			b = jsonx.AppendString(b, s)
			if i == len(sys)-1 {
				b = append(b, ephemeral...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	// The tools breakpoint sits on the last non-deferred tool: in
	// Portable mode the last tool (deferred schemas are absent); in a
	// native mode the provider's search tool, which follows the
	// resident tools and precedes every deferred one. A deferred tool
	// never carries cache_control.
	st := searchTool(cfg)
	// In Client mode the deferred tools follow tool_search: the
	// breakpoint sits on the last tool that is not deferred.
	last := len(tools) - 1
	for last > 0 && tools[last].Deferred {
		last--
	}
	if st != "" && slices.ContainsFunc(tools, func(t frozenTool) bool { return t.Deferred }) {
		st = st[:len(st)-1] + ephemeral + "}"
		last = -1
	}
	b = appendToolsArray(b, tools, st, func(b []byte, t *frozenTool) []byte {
		b = append(b, `{"name":`...)
		b = jsonx.AppendString(b, t.Name)
		b = append(b, `,"description":`...)
		b = jsonx.AppendString(b, t.Description)
		b = append(b, `,"input_schema":`...)
		b = append(b, t.Schema...)
		if t.Deferred {
			b = append(b, deferLoading...)
		} else if last >= 0 && t == &tools[last] {
			b = append(b, ephemeral...)
		}
		return append(b, '}')
	})
	b = append(b, `,"messages":[`...)
	return b, false
}

func (anthropicEncoder) searchTool(mode ToolSearch) string {
	switch mode {
	case Native:
		return `{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`
	case NativeRegex:
		return `{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`
	}
	return ""
}

func (anthropicEncoder) hasNative() bool { return true }

func (anthropicEncoder) checkOrder(m *Message, last Role, at int) error {
	switch m.Role {
	case RoleUser:
		if last == RoleUser {
			return fmt.Errorf("%w: messages[%d]: two user messages in a row; Anthropic needs roles to alternate: merge them or put an assistant message between", errSequence, at)
		}
	case RoleAssistant:
		if last == "" {
			return fmt.Errorf("%w: messages[%d]: Anthropic conversations start with a user message, got assistant", errSequence, at)
		}
		if last == RoleAssistant {
			return fmt.Errorf("%w: messages[%d]: two assistant messages in a row; Anthropic needs roles to alternate", errSequence, at)
		}
	}
	return nil
}

func (anthropicEncoder) add(h *history, m *Message) {
	userSide := m.Role != RoleAssistant
	if userSide && (h.last == RoleUser || h.last == RoleTool) {
		// Reopen the last user message: drop its closing "]}".
		h.buf = append(h.buf[:len(h.buf)-2], ',')
		h.buf = h.anthropicBlocks(h.buf, m)
		h.buf = append(h.buf, "]}"...)
	} else {
		h.sep()
		h.buf = h.anthropic(h.buf, m)
	}
}

func (anthropicEncoder) appendHistory(dst, msgs []byte) []byte {
	// The latest turn's breakpoint sits in its last block, just before
	// the block's closing brace: every message ends "}]}".
	dst = append(dst, msgs[:len(msgs)-3]...)
	dst = append(dst, ephemeral...)
	return append(dst, msgs[len(msgs)-3:]...)
}

func (chatEncoder) historyShaped([]byte) bool { return true }

func (responsesEncoder) historyShaped([]byte) bool { return true }

// An Anthropic history is a list of messages whose content is a list.
func (anthropicEncoder) historyShaped(buf []byte) bool { return bytes.HasSuffix(buf, []byte("}]}")) }

func (chatEncoder) capsDescriptions() bool { return true }

func (responsesEncoder) capsDescriptions() bool { return true }

func (anthropicEncoder) capsDescriptions() bool { return false }

func (chatEncoder) strictFunctions() bool { return true }

func (responsesEncoder) strictFunctions() bool { return true }

func (anthropicEncoder) strictFunctions() bool { return false }

func (chatEncoder) checkRules(*Config) error { return nil }

func (responsesEncoder) checkRules(cfg *Config) error {
	if m := cfg.searchMode(); (m == Native || m == Client) && !openai.NativeToolSearchModel(cfg.Model) {
		return fmt.Errorf("%w: Config.ToolSearch %q with Config.Model %q: OpenAI documents its tool_search for gpt-5.4 and later only; use a gpt-5.4 or later model, or Portable tool search (tool_search and defer_execute work with every model)", ErrConfig, m, cfg.Model)
	}
	return nil
}

func (anthropicEncoder) checkRules(cfg *Config) error {
	if _, ok := cfg.Extra["max_tokens"]; !ok {
		return fmt.Errorf("%w: Config.Extra[\"max_tokens\"] is required by provider %q (the Messages API refuses a request without it): set it, e.g. Extra: map[string]json.RawMessage{\"max_tokens\": json.RawMessage(\"4096\")}", ErrConfig, cfg.Provider)
	}
	return nil
}

func (chatEncoder) searchOutputCarriesTools() bool { return false }

func (responsesEncoder) searchOutputCarriesTools() bool { return true }

func (anthropicEncoder) searchOutputCarriesTools() bool { return false }

func (chatEncoder) maxTools() int { return wire.MaxChatTools }

func (chatEncoder) toolSchema(schema []byte) []byte { return schema }

func (responsesEncoder) toolSchema(schema []byte) []byte { return schema }

// Anthropic refuses oneOf, anyOf and allOf at the top of input_schema
// ("input_schema does not support oneOf, allOf, or anyOf at the top
// level"), and one such tool fails every request: the model sees the
// schema without them, and a call that breaks them is refused by the
// dispatcher's validation against the full schema, with the reason.
func (anthropicEncoder) toolSchema(schema []byte) []byte {
	return jsonx.WithoutMembers(schema, "allOf", "anyOf", "oneOf")
}

// The Responses API has no tools[] limit on record: see docs/providers.md.
func (responsesEncoder) maxTools() int { return 0 }

func (anthropicEncoder) maxTools() int { return 0 }

func (chatEncoder) callID(id string) string { return sentCallID(id, toolname.ChatCallIDOK) }

func (responsesEncoder) callID(id string) string { return sentCallID(id, toolname.ResponsesCallIDOK) }

func (anthropicEncoder) callID(id string) string { return sentCallID(id, toolname.AnthropicCallIDOK) }

// sentCallID returns id when the provider's rule ok accepts it, else its
// alias.
func sentCallID(id string, ok func(string) bool) string {
	if ok(id) {
		return id
	}
	return toolname.CallIDAlias(id)
}

func (chatEncoder) decodeReply(body []byte) (Reply, error) { return decodeChat(body) }

func (responsesEncoder) decodeReply(body []byte) (Reply, error) { return decodeResponses(body) }

func (anthropicEncoder) decodeReply(body []byte) (Reply, error) { return decodeAnthropic(body) }

// Chat Completions chunks carry no type (an error comes as {"error": …})
// and the stream ends with a bare [DONE].
func (chatEncoder) streamEvent(s *Stream, name string, data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
		s.done = true
		return nil
	}
	return s.chatEvent(name, data)
}

func (responsesEncoder) streamEvent(s *Stream, name string, data []byte) error {
	return s.typedEvent(name, data, s.responsesEvent)
}

func (anthropicEncoder) streamEvent(s *Stream, name string, data []byte) error {
	return s.typedEvent(name, data, s.anthropicEvent)
}

func (chatEncoder) streamReply(s *Stream) (Reply, error) { return s.chatReply() }

func (responsesEncoder) streamReply(s *Stream) (Reply, error) { return s.responsesReply() }

func (anthropicEncoder) streamReply(s *Stream) (Reply, error) { return s.anthropicReply() }

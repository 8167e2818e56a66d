package request

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// anthropicEncoder is Anthropic Messages: system blocks and tools with cache
// breakpoints, alternating roles (consecutive user-side messages merge into
// one), BM25 and regex native tool search, and in [Client] mode
// tool_reference blocks that load deferred tools.
type anthropicEncoder struct{}

var anthropicTraits = traits{
	changes: anthropicChanges,
	// cache diagnostics: platform.claude.com/docs/en/build-with-claude/cache-diagnostics
	diagnosticsField: "diagnostics",
	diagnostics:      `,"diagnostics":{"previous_message_id":`,
	diagnosticsFirst: true,
	native:           true,
	nativeSearch:     `{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`,
	regexSearch:      `{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`,
	callIDOK:         toolname.AnthropicCallIDOK,
	clientSearch:     true,
}

// ephemeral is Anthropic's cache breakpoint member.
const ephemeral = `,"cache_control":{"type":"ephemeral"}`

func (anthropicEncoder) traits() *traits { return &anthropicTraits }

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
	st := anthropicTraits.searchTool(cfg.searchMode())
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

func (anthropicEncoder) checkRules(cfg *Config) error {
	if _, ok := cfg.Extra["max_tokens"]; !ok {
		return fmt.Errorf("%w: Config.Extra[\"max_tokens\"] is required by provider %q (the Messages API refuses a request without it): set it, e.g. Extra: map[string]json.RawMessage{\"max_tokens\": json.RawMessage(\"4096\")}", ErrConfig, cfg.Provider)
	}
	return nil
}

// Anthropic refuses oneOf, anyOf and allOf at the top of input_schema
// ("input_schema does not support oneOf, allOf, or anyOf at the top
// level"), and one such tool fails every request: the model sees the
// schema without them, and a call that breaks them is refused by the
// dispatcher's validation against the full schema, with the reason.
func (anthropicEncoder) toolSchema(schema []byte) []byte {
	return jsonx.WithoutMembers(schema, "allOf", "anyOf", "oneOf")
}

// checkOrder: a conversation starts with a user message. Same-role
// neighbours are accepted, as the Messages API documents ("Consecutive
// user or assistant turns in your request will be combined into a single
// turn", anthropic-sdk-go MessageNewParams.Messages): a user message after
// a user message (a harness retrying after a network error) joins it, as
// a user message after tool results does (appendMessage); an assistant
// message after an assistant message is sent as is, and the API combines
// them. An assistant message with calls still needs their results next
// (history.check).
func (anthropicEncoder) checkOrder(m *Message, last Role, at int) error {
	if m.Role == RoleAssistant && last == "" {
		return fmt.Errorf("%w: messages[%d]: Anthropic conversations start with a user message, got assistant", errSequence, at)
	}
	return nil
}

// appendMessage appends m as a message with a content list; a user-side
// message (user text, a tool result) after another joins its content.
func (anthropicEncoder) appendMessage(b []byte, m *Message, last Role, c *msgContext) []byte {
	switch {
	case m.Role != RoleAssistant && (last == RoleUser || last == RoleTool):
		// Reopen the last user message: drop its closing "]}".
		b = append(b[:len(b)-2], ',')
	case m.Role == RoleAssistant:
		b = append(sep(b), `{"role":"assistant","content":[`...)
	default:
		b = append(sep(b), `{"role":"user","content":[`...)
	}
	b = appendAnthropicBlocks(b, m, c)
	b = append(b, "]}"...)
	if m.Role == RoleUser && len(m.Native) > 0 {
		// A live-set change (native_changes.go): one system message.
		b = append(b, `,{"role":"system","content":[`...)
		b = appendNative(b, m.Native)
		b = append(b, "]}"...)
	}
	return b
}

// appendAnthropicBlocks appends m's content blocks.
func appendAnthropicBlocks(b []byte, m *Message, c *msgContext) []byte {
	switch m.Role {
	case RoleUser:
		return appendTextParts(b, "text", m)
	case RoleAssistant:
		b = appendNative(b, m.Native)
		text := assistantText(m)
		if text != "" {
			if len(m.Native) > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"text","text":`...)
			b = jsonx.AppendString(b, text)
			b = append(b, '}')
		}
		for i := range m.ToolCalls {
			tc := &m.ToolCalls[i]
			if i > 0 || text != "" || len(m.Native) > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"tool_use","id":`...)
			b = jsonx.AppendString(b, anthropicTraits.callID(tc.ID))
			b = append(b, `,"name":`...)
			b = jsonx.AppendString(b, tc.Name)
			b = append(b, `,"input":`...)
			b = append(b, c.args(tc.Arguments)...)
			b = append(b, '}')
		}
		return b
	default:
		if len(m.ToolReferences) > 0 {
			return appendReferences(b, m)
		}
		b = append(b, `{"type":"tool_result","tool_use_id":`...)
		b = jsonx.AppendString(b, anthropicTraits.callID(m.CallID))
		b = append(b, `,"content":`...)
		b = appendToolResult(b, resultText(m))
		if m.IsError {
			b = append(b, `,"is_error":true`...)
		}
		return append(b, '}')
	}
}

// appendReferences appends an Anthropic tool_result whose content loads
// tools: one tool_reference block per name, then the text, if any.
func appendReferences(b []byte, m *Message) []byte {
	b = append(b, `{"type":"tool_result","tool_use_id":`...)
	b = jsonx.AppendString(b, anthropicTraits.callID(m.CallID))
	b = append(b, `,"content":[`...)
	for i, n := range m.ToolReferences {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"tool_reference","tool_name":`...)
		b = jsonx.AppendString(b, n)
		b = append(b, '}')
	}
	if !blank(m.Text) {
		b = append(b, `,{"type":"text","text":`...)
		b = jsonx.AppendString(b, m.Text)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func (anthropicEncoder) appendHistory(dst, msgs []byte) []byte {
	// The latest turn's breakpoint sits in its last block, just before
	// the block's closing brace: every message ends "}]}".
	dst = append(dst, msgs[:len(msgs)-3]...)
	dst = append(dst, ephemeral...)
	return append(dst, msgs[len(msgs)-3:]...)
}

// An Anthropic history is a list of messages whose content is a list.
func (anthropicEncoder) historyShaped(buf []byte) bool { return bytes.HasSuffix(buf, []byte("}]}")) }

func (anthropicEncoder) decodeReply(body []byte) (Reply, error) { return decodeAnthropic(body) }

func (anthropicEncoder) streamEvent(s *Stream, name string, data []byte) error {
	return s.typedEvent(name, data, s.anthropicEvent)
}

func (anthropicEncoder) streamReply(s *Stream) (Reply, error) { return s.anthropicReply() }

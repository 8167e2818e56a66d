package request

import (
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/openai"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// responsesEncoder is the OpenAI Responses API: the system texts as
// instructions, the hosted tool_search as its native search, and in
// [Client] mode tool_search_call and tool_search_output items carrying the
// found tools' definitions. It has no tools[] limit on record: see
// docs/providers.md.
type responsesEncoder struct{}

var responsesTraits = traits{
	changes: responsesChanges,
	// developers.openai.com/api/docs/guides/prompt-caching/diagnostics
	diagnosticsField: "prompt_cache_options",
	diagnostics:      `,"prompt_cache_options":{"comparison_response_id":`,
	narrow: &narrowing{key: "tool_choice", none: `"none"`, list: func(b []byte, names []string, search bool) []byte {
		// openai-go v3.99.0 responses.ToolChoiceAllowedParam.
		b = append(b, `{"type":"allowed_tools","mode":"auto","tools":[`...)
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"function","name":`...)
			b = append(jsonx.AppendString(b, n), '}')
		}
		if search {
			b = append(b, `,{"type":"tool_search"}`...)
		}
		return append(b, "]}"...)
	}},
	native:                   true,
	capsDescriptions:         true,
	strictFunctions:          true,
	searchOutputCarriesTools: true,
	nativeSearch:             `{"type":"tool_search"}`,
	callIDOK:                 toolname.ResponsesCallIDOK,
	clientSearch:             true,
}

func (responsesEncoder) traits() *traits { return &responsesTraits }

func (responsesEncoder) prefix(b []byte, cfg *Config, sys []string, tools []frozenTool) ([]byte, bool) {
	if len(sys) > 0 {
		b = append(b, `,"instructions":`...)
		b = jsonx.AppendString(b, strings.Join(sys, "\n\n"))
	}
	client := cfg.searchMode() == Client
	b = appendToolsArray(b, tools, responsesTraits.searchTool(cfg.searchMode()), func(b []byte, t *frozenTool) []byte {
		if client && t.Name == registry.ToolSearchName {
			return appendClientSearch(b, t)
		}
		b = appendResponsesFunction(b, t)
		if t.Deferred {
			b = append(b, deferLoading...)
		}
		return append(b, '}')
	})
	b = append(b, `,"input":[`...)
	return b, false
}

// appendResponsesFunction appends a function tool as the Responses API
// takes it, but for its closing brace.
func appendResponsesFunction(b []byte, t *frozenTool) []byte {
	b = appendFunction(append(b, `{"type":"function",`...), t)
	// Without "strict" the Responses API normalizes the schema into strict
	// mode, making optional parameters required.
	if t.Strict {
		return append(b, `,"strict":true`...)
	}
	return append(b, `,"strict":false`...)
}

// appendClientSearch appends tool_search as the Responses API takes a
// client-executed search: the hosted tool's type with execution "client",
// and toolshelf's description and parameters.
func appendClientSearch(b []byte, t *frozenTool) []byte {
	b = append(b, `{"type":"tool_search","execution":"client","description":`...)
	b = jsonx.AppendString(b, t.Description)
	b = append(b, `,"parameters":`...)
	b = append(b, t.Schema...)
	return append(b, '}')
}

func (responsesEncoder) checkRules(cfg *Config) error {
	if m := cfg.searchMode(); (m == Native || m == Client) && !openai.NativeToolSearchModel(cfg.Model) {
		return fmt.Errorf("%w: Config.ToolSearch %q with Config.Model %q: OpenAI documents its tool_search for gpt-5.4 and later only; use a gpt-5.4 or later model, or Portable tool search (tool_search and defer_execute work with every model)", ErrConfig, m, cfg.Model)
	}
	return nil
}

func (responsesEncoder) toolSchema(schema []byte) []byte { return schema }

func (responsesEncoder) checkOrder(*Message, Role, int) error { return nil }

// appendMessage appends m as input items: a user message, an assistant's
// native parts, text and function calls (client tool searches as
// tool_search_call), a function_call_output (or the tool_search_output
// that answers a client tool search).
func (responsesEncoder) appendMessage(b []byte, m *Message, _ Role, c *msgContext) []byte {
	b = sep(b)
	switch m.Role {
	case RoleUser:
		b = append(b, `{"type":"message","role":"user","content":[`...)
		b = appendTextParts(b, "input_text", m)
		b = append(b, "]}"...)
		if len(m.Native) > 0 {
			// A live-set change (native_changes.go): its input items.
			b = appendNative(append(b, ','), m.Native)
		}
		return b
	case RoleAssistant:
		b = appendNative(b, m.Native)
		text := assistantText(m)
		if text != "" {
			if len(m.Native) > 0 {
				b = append(b, ',')
			}
			// The plain input-message form (EasyInputMessage): an
			// output_text item would need the id and status of a response
			// the API produced.
			b = append(b, `{"type":"message","role":"assistant","content":`...)
			b = jsonx.AppendString(b, text)
			b = append(b, '}')
		}
		for i := range m.ToolCalls {
			tc := &m.ToolCalls[i]
			if i > 0 || text != "" || len(m.Native) > 0 {
				b = append(b, ',')
			}
			if c.client != nil && tc.Name == registry.ToolSearchName {
				b = appendSearchCall(b, tc, c)
				continue
			}
			b = append(b, `{"type":"function_call","call_id":`...)
			b = jsonx.AppendString(b, responsesTraits.callID(tc.ID))
			b = append(b, `,"name":`...)
			b = jsonx.AppendString(b, tc.Name)
			b = append(b, `,"arguments":`...)
			b = appendBytesString(b, c.args(tc.Arguments))
			b = append(b, '}')
		}
		return b
	default:
		if c.client != nil && c.client.answersSearch(m) {
			return appendSearchOutput(b, m, c)
		}
		b = append(b, `{"type":"function_call_output","call_id":`...)
		b = jsonx.AppendString(b, responsesTraits.callID(m.CallID))
		b = append(b, `,"output":`...)
		b = appendResultText(b, m)
		return append(b, '}')
	}
}

// appendSearchCall appends a client tool search call as the Responses API
// takes it back: a tool_search_call item.
func appendSearchCall(b []byte, tc *ToolCall, c *msgContext) []byte {
	b = append(b, `{"type":"tool_search_call","call_id":`...)
	b = jsonx.AppendString(b, responsesTraits.callID(tc.ID))
	b = append(b, `,"execution":"client","status":"completed","arguments":`...)
	b = append(b, c.args(tc.Arguments)...)
	return append(b, '}')
}

// appendSearchOutput appends the answer to a client tool search on the
// Responses API: a tool_search_output item with the found tools'
// definitions (none for a search that found nothing to load).
func appendSearchOutput(b []byte, m *Message, c *msgContext) []byte {
	b = append(b, `{"type":"tool_search_output","call_id":`...)
	b = jsonx.AppendString(b, responsesTraits.callID(m.CallID))
	b = append(b, `,"execution":"client","status":"completed","tools":[`...)
	for i, n := range m.ToolReferences {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.client.appendDef(b, n)
	}
	return append(b, "]}"...)
}

func (responsesEncoder) appendHistory(dst, msgs []byte) []byte { return append(dst, msgs...) }

func (responsesEncoder) historyShaped([]byte) bool { return true }

func (responsesEncoder) decodeReply(body []byte) (Reply, error) { return decodeResponses(body) }

func (responsesEncoder) streamEvent(s *Stream, name string, data []byte) error {
	return s.typedEvent(name, data, s.responsesEvent)
}

func (responsesEncoder) streamReply(s *Stream) (Reply, error) { return s.responsesReply() }

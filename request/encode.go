package request

import (
	"github.com/toolshelf/toolshelf/internal/jsonx"
	"maps"
	"slices"
	"strings"
)

// ephemeral is Anthropic's cache breakpoint member.
const ephemeral = `,"cache_control":{"type":"ephemeral"}`

// Tags around a user's own text.
const (
	queryOpen  = "<user_query>"
	queryClose = "</user_query>"
)

// encodePrefix encodes everything before the first history message:
// model, extra fields (sorted), system and tools, and the opening of the
// messages (or input) array. index, when not empty, is tool_search's name
// index, carried as the last system text (a provider that caps tool
// descriptions).
func encodePrefix(cfg *Config, tools []FrozenTool, index string) (prefix []byte, elem bool) {
	b := []byte(`{"model":`)
	b = jsonx.AppendString(b, cfg.Model)
	for _, k := range slices.Sorted(maps.Keys(cfg.Extra)) {
		b = append(b, ',')
		b = jsonx.AppendString(b, k)
		b = append(b, ':')
		b = jsonx.AppendCompact(b, cfg.Extra[k])
	}
	sys := systemTexts(cfg)
	if index != "" {
		sys = append(sys, index)
	}
	switch cfg.Provider {
	case OpenAIChat:
		b = appendToolsArray(b, tools, "", func(b []byte, t *FrozenTool) []byte {
			b = append(b, `{"type":"function","function":{"name":`...)
			b = jsonx.AppendString(b, t.Name)
			b = append(b, `,"description":`...)
			b = jsonx.AppendString(b, t.Description)
			b = append(b, `,"parameters":`...)
			b = append(b, t.Schema...)
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
	case OpenAIResponses:
		if len(sys) > 0 {
			b = append(b, `,"instructions":`...)
			b = jsonx.AppendString(b, strings.Join(sys, "\n\n"))
		}
		b = appendToolsArray(b, tools, searchTool(cfg), func(b []byte, t *FrozenTool) []byte {
			b = append(b, `{"type":"function","name":`...)
			b = jsonx.AppendString(b, t.Name)
			b = append(b, `,"description":`...)
			b = jsonx.AppendString(b, t.Description)
			b = append(b, `,"parameters":`...)
			b = append(b, t.Schema...)
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
	case Anthropic:
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
		last := len(tools) - 1
		if st != "" && slices.ContainsFunc(tools, func(t FrozenTool) bool { return t.Deferred }) {
			st = st[:len(st)-1] + ephemeral + "}"
			last = -1
		}
		b = appendToolsArray(b, tools, st, func(b []byte, t *FrozenTool) []byte {
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
	}
	return slices.Clip(b), elem
}

// deferLoading marks a deferred tool in a native tool search mode.
const deferLoading = `,"defer_loading":true`

// searchTool returns the provider's own search tool for a native mode, or
// "" when there is none: Portable mode, or nothing deferred.
func searchTool(cfg *Config) string {
	switch cfg.searchMode() {
	case Native:
		if cfg.Provider == OpenAIResponses {
			return `{"type":"tool_search"}`
		}
		return `{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`
	case NativeRegex:
		return `{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`
	}
	return ""
}

// appendToolsArray appends "tools": the tools encoded by one, with search
// (raw JSON, possibly "") after the last non-deferred tool. search is left
// out when no tool is deferred: the provider's search has nothing to find.
func appendToolsArray(b []byte, tools []FrozenTool, search string, one func([]byte, *FrozenTool) []byte) []byte {
	at := -1 // index of the first deferred tool
	for i := range tools {
		if tools[i].Deferred {
			at = i
			break
		}
	}
	if at < 0 {
		search = ""
	}
	if len(tools) == 0 {
		return b
	}
	b = append(b, `,"tools":[`...)
	for i := range tools {
		if i == at {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, search...)
		}
		if i > 0 || (i == at && search != "") {
			b = append(b, ',')
		}
		b = one(b, &tools[i])
	}
	return append(b, ']')
}

// appendTextParts appends a user message's blocks, then its text wrapped
// in <user_query>, as content-array elements {"type":typ,"text":...}.
func appendTextParts(b []byte, typ string, m *Message) []byte {
	for i, blk := range m.Blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"`...)
		b = append(b, typ...)
		b = append(b, `","text":`...)
		b = jsonx.AppendString(b, blk)
		b = append(b, '}')
	}
	if m.Text != "" {
		if len(m.Blocks) > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"`...)
		b = append(b, typ...)
		b = append(b, `","text":`...)
		b = appendQuery(b, m.Text)
		b = append(b, '}')
	}
	return b
}

// appendQuery appends "<user_query>text</user_query>" as one JSON string,
// without building the wrapped string. A wrapper tag inside text
// (user_query, new_deferred_tool, tools_changed, available_deferred_tools;
// any case or spacing) is neutralized ("&lt;/user_query>"): the user's
// text cannot close the wrapper and pass as the host's.
func appendQuery(b []byte, text string) []byte {
	b = append(b, '"')
	b = append(b, queryOpen...)
	b = appendQueryBody(b, text)
	b = append(b, queryClose...)
	return append(b, '"')
}

package request

import (
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
// messages (or input) array.
func encodePrefix(cfg *Config, tools []FrozenTool) (prefix []byte, elem bool) {
	b := []byte(`{"model":`)
	b = appendString(b, cfg.Model)
	for _, k := range slices.Sorted(maps.Keys(cfg.Extra)) {
		b = append(b, ',')
		b = appendString(b, k)
		b = append(b, ':')
		b = appendCompact(b, cfg.Extra[k])
	}
	sys := systemTexts(cfg)
	switch cfg.Provider {
	case OpenAIChat:
		b = appendToolsArray(b, tools, func(b []byte, t *FrozenTool) []byte {
			b = append(b, `{"type":"function","function":{"name":`...)
			b = appendString(b, t.Name)
			b = append(b, `,"description":`...)
			b = appendString(b, t.Description)
			b = append(b, `,"parameters":`...)
			b = append(b, t.Schema...)
			return append(b, "}}"...)
		})
		b = append(b, `,"messages":[`...)
		if len(sys) > 0 {
			b = append(b, `{"role":"system","content":`...)
			b = appendString(b, strings.Join(sys, "\n\n"))
			b = append(b, '}')
			elem = true
		}
	case OpenAIResponses:
		if len(sys) > 0 {
			b = append(b, `,"instructions":`...)
			b = appendString(b, strings.Join(sys, "\n\n"))
		}
		b = appendToolsArray(b, tools, func(b []byte, t *FrozenTool) []byte {
			b = append(b, `{"type":"function","name":`...)
			b = appendString(b, t.Name)
			b = append(b, `,"description":`...)
			b = appendString(b, t.Description)
			b = append(b, `,"parameters":`...)
			b = append(b, t.Schema...)
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
				b = appendString(b, s)
				if i == len(sys)-1 {
					b = append(b, ephemeral...)
				}
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		// Every tool in tools[] is resident (deferred schemas are absent),
		// so the breakpoint on the last one never sits on a deferred tool.
		last := len(tools) - 1
		b = appendToolsArray(b, tools, func(b []byte, t *FrozenTool) []byte {
			b = append(b, `{"name":`...)
			b = appendString(b, t.Name)
			b = append(b, `,"description":`...)
			b = appendString(b, t.Description)
			b = append(b, `,"input_schema":`...)
			b = append(b, t.Schema...)
			if t == &tools[last] {
				b = append(b, ephemeral...)
			}
			return append(b, '}')
		})
		b = append(b, `,"messages":[`...)
	}
	return slices.Clip(b), elem
}

func appendToolsArray(b []byte, tools []FrozenTool, one func([]byte, *FrozenTool) []byte) []byte {
	if len(tools) == 0 {
		return b
	}
	b = append(b, `,"tools":[`...)
	for i := range tools {
		if i > 0 {
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
		b = appendString(b, blk)
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
// without building the wrapped string.
func appendQuery(b []byte, text string) []byte {
	b = append(b, '"')
	b = append(b, queryOpen...)
	b = appendStringBody(b, text)
	b = append(b, queryClose...)
	return append(b, '"')
}

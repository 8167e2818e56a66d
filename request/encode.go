package request

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
)

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
func encodePrefix(cfg *Config, tools []frozenTool, index string) (prefix []byte, elem bool) {
	enc, _ := encoderFor(cfg.Provider) // checkConfig accepted the provider
	b := []byte(`{"model":`)
	b = jsonx.AppendString(b, cfg.Model)
	if enc.traits().modelInPath {
		b = b[:1]
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Extra)) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, k)
		b = append(b, ':')
		b = jsonx.AppendCompact(b, cfg.Extra[k])
	}
	sys := systemTexts(cfg)
	if index != "" {
		sys = append(sys, index)
	}
	b, elem = enc.prefix(b, cfg, sys, tools)
	return slices.Clip(b), elem
}

// deferLoading marks a deferred tool in a native tool search mode.
const deferLoading = `,"defer_loading":true`

// searchTool returns the provider's own search tool for cfg's mode, or ""
// when there is none: Portable mode, or nothing deferred.
func searchTool(cfg *Config) string {
	enc, _ := encoderFor(cfg.Provider)
	return enc.traits().searchTool(cfg.searchMode())
}

// appendToolsArray appends "tools": the tools encoded by one, with search
// (raw JSON, possibly "") after the last non-deferred tool. search is left
// out when no tool is deferred: the provider's search has nothing to find.
func appendToolsArray(b []byte, tools []frozenTool, search string, one func([]byte, *frozenTool) []byte) []byte {
	at := -1 // index of the first deferred tool
	for i := range tools {
		if tools[i].Deferred {
			at = i
			break
		}
	}
	if at < 0 || search == "" {
		// Nothing deferred, or no provider search tool (Client mode).
		at, search = -1, ""
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

// A msgContext is what encoding a message needs beyond the message and
// the role before it (see [encoder.appendMessage]): the session's Client
// tool search state, and scratch space reused so that a steady turn does
// not allocate. The history holds one.
type msgContext struct {
	client  *clientHistory // the Client tool search mode's state, else nil
	scratch []byte
}

// args returns the compact arguments, "{}" when empty, in scratch space.
func (c *msgContext) args(a []byte) []byte {
	if noArguments(a) {
		c.scratch = append(c.scratch[:0], "{}"...)
	} else {
		c.scratch = jsonx.AppendCompact(c.scratch[:0], a)
	}
	return c.scratch
}

// noArguments reports an empty or null arguments value: a call without
// arguments, sent as {}.
func noArguments(a []byte) bool {
	a = bytes.TrimSpace(a)
	return len(a) == 0 || string(a) == "null"
}

// sep appends the comma before a message's first element when msgs, the
// encoded messages, already holds one.
func sep(msgs []byte) []byte {
	if len(msgs) > 0 {
		msgs = append(msgs, ',')
	}
	return msgs
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

// appendResultText appends a tool result's text, neutralised
// ([appendToolResult]); providers without an error flag read "Error: " in
// front of a failed result.
func appendResultText(b []byte, m *Message) []byte {
	if !m.IsError {
		return appendToolResult(b, m.Text)
	}
	b = append(b, `"Error: `...)
	b = appendQueryBody(b, resultText(m))
	return append(b, '"')
}

// resultText is a tool result's text as sent: a failed result with no
// text says so ([emptyErrorResult]).
func resultText(m *Message) string {
	if m.IsError && blank(m.Text) {
		return emptyErrorResult
	}
	return m.Text
}

// assistantText is an assistant message's text as sent: whitespace-only
// text is left out next to tool calls or native parts, and is
// [emptyText] when it is all the message has.
func assistantText(m *Message) string {
	if m.Text == "" || !blank(m.Text) {
		return m.Text
	}
	if len(m.ToolCalls) > 0 || len(m.Native) > 0 {
		return ""
	}
	return emptyText
}

// appendNative appends a reply's provider-native parts (server tool search
// blocks), comma-separated, as the provider sent them.
func appendNative(b []byte, parts []json.RawMessage) []byte {
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendCompact(b, p)
	}
	return b
}

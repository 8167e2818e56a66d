// Package shelftools reads the tool list and the system text a
// request.Session sends, from its frozen prefix, for the framework adapters
// (integration/eino, integration/genkit): a framework encodes the request
// itself, so it is handed the definitions the session would have sent —
// descriptions rendered, the name index where the provider puts it,
// injected fields left out — in the session's order.
//
// It reads [request.Session.Prefix], the public bytes, and nothing else of
// the session: the prefix is frozen, so what this returns is the same on
// every call, for the life of the session.
package shelftools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/request"
)

// Tool is one tool definition as the session sends it.
type Tool struct {
	Name        string
	Description string
	// Schema is the input schema's JSON, byte for byte as in the prefix.
	Schema json.RawMessage
}

// Read returns the session's system text and tool definitions. The session
// must use the portable tool search (the default) with the Anthropic
// Messages, OpenAI Chat Completions or Responses encoder, or Gemini's
// generateContent shape, whose tools[] carry plain function definitions;
// anything else is an error wrapping errors.ErrUnsupported.
func Read(s *request.Session) (system string, tools []Tool, err error) {
	return parse(s.Prefix())
}

// parse reads a prefix. It stops inside "messages":[ (after the system
// message on Chat Completions), "input":[ (Responses) or "contents":[
// (Gemini): closing the array and the object makes it a document.
func parse(prefix []byte) (system string, tools []Tool, err error) {
	doc := make([]byte, 0, len(prefix)+2)
	doc = append(append(doc, prefix...), "]}"...)
	var body struct {
		System            json.RawMessage `json:"system"`
		Instructions      json.RawMessage `json:"instructions"`
		SystemInstruction *struct {
			Parts json.RawMessage `json:"parts"`
		} `json:"systemInstruction"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(doc, &body); err != nil {
		return "", nil, fmt.Errorf("session prefix is not an Anthropic, OpenAI or Gemini body: %w", errors.ErrUnsupported)
	}
	texts := []json.RawMessage{body.System, body.Instructions}
	if body.SystemInstruction != nil {
		texts = append(texts, body.SystemInstruction.Parts)
	}
	for _, m := range body.Messages {
		if m.Role == "system" || m.Role == "developer" {
			texts = append(texts, m.Content)
		}
	}
	for _, raw := range texts {
		text, err := readSystem(raw)
		if err != nil {
			return "", nil, err
		}
		system = joinText(system, text)
	}
	tools = make([]Tool, 0, len(body.Tools))
	for _, raw := range body.Tools {
		var g struct {
			FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
		}
		if err := json.Unmarshal(raw, &g); err == nil && len(g.FunctionDeclarations) > 0 {
			for _, d := range g.FunctionDeclarations {
				t, err := readTool(d)
				if err != nil {
					return "", nil, err
				}
				tools = append(tools, t)
			}
			continue
		}
		t, err := readTool(raw)
		if err != nil {
			return "", nil, err
		}
		tools = append(tools, t)
	}
	return system, tools, nil
}

// readSystem reads a system text: a string, or Anthropic's text blocks.
func readSystem(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	// Anthropic's blocks are {"type":"text","text":…}, Gemini's parts
	// {"text":…}.
	var blocks []struct {
		Type *string `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", fmt.Errorf("session system text: %w", errors.ErrUnsupported)
	}
	var text string
	for _, b := range blocks {
		if b.Text == nil || (b.Type != nil && *b.Type != "text") {
			return "", fmt.Errorf("session system block: not text: %w", errors.ErrUnsupported)
		}
		text = joinText(text, *b.Text)
	}
	return text, nil
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// readTool reads one tools[] entry: Anthropic's {name, description,
// input_schema}, Chat Completions' {type: function, function: {name,
// description, parameters}}, Responses' {type: function, name,
// description, parameters} or a Gemini function declaration {name,
// description, parametersJsonSchema or parameters}. A provider's own tool (native tool search)
// has neither and is refused.
func readTool(raw json.RawMessage) (Tool, error) {
	var e struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
		Parameters  json.RawMessage `json:"parameters"`
		JSONSchema  json.RawMessage `json:"parametersJsonSchema"`
		Function    *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return Tool{}, fmt.Errorf("session tool: %w", errors.ErrUnsupported)
	}
	t := Tool{Name: e.Name, Description: e.Description, Schema: e.InputSchema}
	for _, alt := range []json.RawMessage{e.Parameters, e.JSONSchema} {
		if len(t.Schema) == 0 {
			t.Schema = alt
		}
	}
	if e.Function != nil {
		t = Tool{Name: e.Function.Name, Description: e.Function.Description, Schema: e.Function.Parameters}
	}
	if t.Name == "" || len(t.Schema) == 0 || t.Schema[0] != '{' {
		name := strings.TrimSpace(t.Name + " " + e.Type)
		return Tool{}, fmt.Errorf("session tool %q is not a function definition (use request.Portable tool search): %w", name, errors.ErrUnsupported)
	}
	return t, nil
}

package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"

	"github.com/stretchr/testify/assert"
)

func TestCheck(t *testing.T) {
	long := strings.Repeat("a", MaxDescription+1)
	tools := func(n int, format, list string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, format, i)
		}
		return `{"model":"m","tools":[` + b.String() + `],"` + list + `":[]}`
	}
	chatTools := func(n int) string {
		return tools(n, `{"type":"function","function":{"name":"t%d","description":"d","parameters":{"type":"object"}}}`, "messages")
	}
	chatCall := func(call, result string) string {
		return `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"` + call + `","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"` + result + `","content":"x"}]}`
	}
	responsesCall := func(call, result string) string {
		return `{"model":"m","input":[{"type":"function_call","call_id":"` + call + `","name":"a","arguments":"{}"},{"type":"function_call_output","call_id":"` + result + `","output":"x"}]}`
	}
	anthropicCall := func(call, result string) string {
		return `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"` + call + `","name":"a","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + result + `","content":"x"}]}]}`
	}
	id40, id41 := strings.Repeat("i", toolname.MaxChatCallID), strings.Repeat("i", toolname.MaxChatCallID+1)
	id64, id65 := strings.Repeat("i", toolname.MaxResponsesCallID), strings.Repeat("i", toolname.MaxResponsesCallID+1)
	tests := []struct {
		name     string
		provider string
		body     string
		rule     string // "" means no violation
		path     string
	}{
		{"anthropic tool change ok", Anthropic, `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"a"}},{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"b","input_schema":{"type":"object"}}}}]},{"role":"assistant","content":[{"type":"text","text":"ok"}]},{"role":"user","content":[{"type":"text","text":"x"}]},{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"b"}}]}]}`, "", ""},
		{"anthropic removal of an unknown tool", Anthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"b"}}]}]}`, "tool-change", "messages[1].content[0].tool.name"},
		{"anthropic addition without a schema", Anthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"b"}}}]}]}`, "schema-object", "messages[1].content[0].tool.definition.input_schema"},
		{"anthropic addition of another kind", Anthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"system","content":[{"type":"tool_addition","tool":{"name":"b"}}]}]}`, "tool-change", "messages[1].content[0].tool"},
		{"responses additional tools ok", OpenAIResponses, `{"model":"m","input":[{"type":"message","role":"user","content":"hi"},{"type":"additional_tools","role":"developer","tools":[{"type":"function","name":"b","parameters":{"type":"object"},"strict":false}]}]}`, "", ""},
		{"responses additional tools role", OpenAIResponses, `{"model":"m","input":[{"type":"additional_tools","role":"user","tools":[]}]}`, "additional-tools", "input[0].role"},
		{"responses additional tools strict", OpenAIResponses, `{"model":"m","input":[{"type":"additional_tools","role":"developer","tools":[{"type":"function","name":"b","parameters":{"type":"object"}}]}]}`, "strict-explicit", "input[0].tools[0].strict"},
		{"gemini ok", Gemini, geminiBody(`{"name":"a","description":"d","parametersJsonSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/x"}}}}`, geminiCall("c1", "a", "c1", "a")), "", ""},
		{"gemini name starts with a digit", Gemini, geminiBody(`{"name":"2fa","parametersJsonSchema":{"type":"object"}}`, ""), "tool-name", "tools[0].functionDeclarations[0].name"},
		{"gemini dotted name", Gemini, geminiBody(`{"name":"a.b:c","parametersJsonSchema":{"type":"object"}}`, ""), "", ""},
		{"gemini duplicate", Gemini, geminiBody(`{"name":"a"},{"name":"a"}`, ""), "unique-names", "tools[0].functionDeclarations[1].name"},
		{"gemini both schemas", Gemini, geminiBody(`{"name":"a","parameters":{"type":"object"},"parametersJsonSchema":{"type":"object"}}`, ""), "schema-field", "tools[0].functionDeclarations[0]"},
		{"gemini $ref in parameters", Gemini, geminiBody(`{"name":"a","parameters":{"type":"object","properties":{"x":{"$ref":"#/x"}}}}`, ""), "schema-field", "tools[0].functionDeclarations[0].parameters.properties.x.$ref"},
		{"gemini OpenAPI parameters", Gemini, geminiBody(`{"name":"a","parameters":{"type":"object","properties":{"x":{"type":"string","enum":["a"],"nullable":true}},"required":["x"]}}`, ""), "", ""},
		{"gemini schema not an object", Gemini, geminiBody(`{"name":"a","parametersJsonSchema":{"type":"string"}}`, ""), "schema-field", "tools[0].functionDeclarations[0].parametersJsonSchema"},
		{"gemini role", Gemini, `{"contents":[{"role":"assistant","parts":[{"text":"x"}]}]}`, "roles", "contents[0].role"},
		{"gemini empty parts", Gemini, `{"contents":[{"role":"user","parts":[]}]}`, "empty-parts", "contents[0].parts"},
		{"gemini empty part", Gemini, `{"contents":[{"role":"user","parts":[{}]}]}`, "empty-parts", "contents[0].parts[0]"},
		{"gemini empty system", Gemini, `{"systemInstruction":{"parts":[]},"contents":[{"role":"user","parts":[{"text":"x"}]}]}`, "empty-parts", "systemInstruction.parts"},
		{"gemini unanswered", Gemini, geminiBody(`{"name":"a"}`, geminiCall("c1", "a", "", "")), "calls-answered", "contents[1].parts[0].functionCall"},
		{"gemini wrong id", Gemini, geminiBody(`{"name":"a"}`, geminiCall("c1", "a", "c2", "a")), "calls-answered", "contents[2].parts[0].functionResponse.id"},
		{"gemini wrong name", Gemini, geminiBody(`{"name":"a"}`, geminiCall("c1", "a", "c1", "b")), "calls-answered", "contents[2].parts[0].functionResponse.name"},
		{"chat ok", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":""}]}`, "", ""},
		{"chat description", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a","description":"` + long + `"}}],"messages":[]}`, "description-length", "tools[0].function.description"},
		{"chat description in runes", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a","description":"` + strings.Repeat("é", MaxDescription) + `"}}],"messages":[]}`, "", ""},
		{"chat dotted name", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a.b","description":"d"}}],"messages":[]}`, "tool-name", "tools[0].function.name"},
		{"chat long name", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"` + strings.Repeat("n", 65) + `","description":"d"}}],"messages":[]}`, "tool-name", "tools[0].function.name"},
		{"chat duplicate", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"a"}}],"messages":[]}`, "unique-names", "tools[1].function.name"},
		{"chat unanswered", OpenAIChat, `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]}]}`, "calls-answered", "messages[1].tool_calls[0]"},
		{"chat empty failure", OpenAIChat, `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"Error: "}]}`, "empty-error-result", "messages[2].content"},
		{"responses ok", OpenAIResponses, `{"model":"m","tools":[{"type":"function","name":"a","description":"d","parameters":{"type":"object"},"strict":false}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},{"role":"assistant","content":"ok"},{"type":"function_call","call_id":"c1","name":"a","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"x"}]}`, "", ""},
		{"responses strict missing", OpenAIResponses, `{"model":"m","tools":[{"type":"function","name":"a","description":"d","parameters":{"type":"object"}}],"input":[]}`, "strict-explicit", "tools[0].strict"},
		{"responses strict true, open schema", OpenAIResponses, `{"model":"m","tools":[{"type":"function","name":"a","description":"d","parameters":{"type":"object","properties":{"x":{}}},"strict":true}],"input":[]}`, "strict-explicit", "tools[0].strict"},
		{"chat strict true, open schema", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object"},"strict":true}}],"messages":[]}`, "strict-explicit", "tools[0].strict"},
		{"responses description", OpenAIResponses, `{"model":"m","tools":[{"type":"function","name":"a","description":"` + long + `","strict":false}],"input":[]}`, "description-length", "tools[0].description"},
		{"responses output_text", OpenAIResponses, `{"model":"m","input":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}]}`, "assistant-text", "input[0]"},
		{"responses native old model", OpenAIResponses, `{"model":"gpt-4o","tools":[{"type":"tool_search"}],"input":[]}`, "native-tool-search", "tools[0]"},
		{"responses native new model", OpenAIResponses, `{"model":"gpt-5.4-mini","tools":[{"type":"tool_search"}],"input":[]}`, "", ""},
		{"responses unanswered", OpenAIResponses, `{"model":"m","input":[{"type":"function_call","call_id":"c1","name":"a","arguments":"{}"}]}`, "calls-answered", "input[0]"},
		{"anthropic ok", Anthropic, `{"model":"m","max_tokens":1024,"system":[{"type":"text","text":"s"}],"tools":[{"name":"a","description":"` + long + `","input_schema":{"type":"object"}},{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"a","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"no","is_error":true}]}]}`, "", ""},
		{"anthropic max_tokens", Anthropic, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`, "max-tokens", "max_tokens"},
		{"anthropic empty error", Anthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"a","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":" ","is_error":true}]}]}`, "error-result-content", "messages[2].content[0].content"},
		{"anthropic whitespace text", Anthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"text","text":" \n"}]}]}`, "whitespace-text", "messages[1].content[0].text"},
		{"anthropic unanswered", Anthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"a","input":{}}]}]}`, "calls-answered", "messages[1].content[0]"},
		{"chat 128 tools", OpenAIChat, chatTools(MaxChatTools), "", ""},
		{"chat 129 tools", OpenAIChat, chatTools(MaxChatTools + 1), "tool-count", "tools"},
		{"chat call id of 40", OpenAIChat, chatCall(id40, id40), "", ""},
		{"chat call id of 41", OpenAIChat, chatCall(id41, id41), "call-id", "messages[1].tool_calls[0].id"},
		{"chat result id of 41", OpenAIChat, chatCall("c1", id41), "call-id", "messages[2].tool_call_id"},
		{"chat parameters without type", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a","parameters":{"properties":{}}}}],"messages":[]}`, "schema-object", "tools[0].function.parameters"},
		{"chat without parameters", OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a"}}],"messages":[]}`, "", ""},
		{"responses parameters of another type", OpenAIResponses, `{"model":"m","tools":[{"type":"function","name":"a","parameters":{"type":"array"},"strict":false}],"input":[]}`, "schema-object", "tools[0].parameters"},
		{"anthropic without input_schema", Anthropic, `{"model":"m","max_tokens":1,"tools":[{"name":"a"}],"messages":[]}`, "schema-object", "tools[0].input_schema"},
		{"anthropic top-level anyOf", Anthropic, `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object","anyOf":[{"required":["x"]}]}}],"messages":[]}`, "schema-top-level", "tools[0].input_schema.anyOf"},
		{"anthropic nested anyOf", Anthropic, `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object","properties":{"x":{"anyOf":[{"type":"string"}]}}}}],"messages":[]}`, "", ""},
		{"responses 129 tools", OpenAIResponses, tools(MaxChatTools+1, `{"type":"function","name":"t%d","description":"d","parameters":{"type":"object"},"strict":false}`, "input"), "", ""},
		{"responses call_id of 64", OpenAIResponses, responsesCall(id64, id64), "", ""},
		{"responses call_id of 65", OpenAIResponses, responsesCall(id65, id65), "call-id", "input[0].call_id"},
		{"responses output call_id of 65", OpenAIResponses, responsesCall("c1", id65), "call-id", "input[1].call_id"},
		{"anthropic long id", Anthropic, anthropicCall(id65+"-_Z9", id65+"-_Z9"), "", ""},
		{"anthropic dotted id", Anthropic, anthropicCall("functions.Bash:0", "functions.Bash:0"), "call-id", "messages[1].content[0].id"},
		{"anthropic piped result id", Anthropic, anthropicCall("c1", "call_1|fc_1"), "call-id", "messages[2].content[0].tool_use_id"},
		{"alias on every provider", Anthropic, anthropicCall(toolname.CallIDAlias("call_1|fc_1"), toolname.CallIDAlias("call_1|fc_1")), "", ""},
		{"not json", Anthropic, `{`, "json", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := Check(tc.provider, []byte(tc.body))
			if tc.rule == "" {
				assert.Empty(t, vs)
				return
			}
			if assert.NotEmpty(t, vs) {
				assert.Equal(t, tc.rule, vs[0].Rule, vs[0].String())
				assert.Equal(t, tc.path, vs[0].Path)
			}
		})
	}
}

// geminiBody is a generateContent body with decls as its function
// declarations and contents (a user text when "").
func geminiBody(decls, contents string) string {
	if contents == "" {
		contents = `{"role":"user","parts":[{"text":"hi"}]}`
	}
	return `{"systemInstruction":{"parts":[{"text":"s"}]},"tools":[{"functionDeclarations":[` + decls + `]}],"contents":[` + contents + `]}`
}

// geminiCall is a user text, a model call (id, name) and, unless rid is
// "", the user content answering it (id rid, name rname).
func geminiCall(id, name, rid, rname string) string {
	c := `{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"id":"` + id + `","name":"` + name + `","args":{}}}]}`
	if rid != "" {
		c += `,{"role":"user","parts":[{"functionResponse":{"id":"` + rid + `","name":"` + rname + `","response":{"output":"x"}}}]}`
	}
	return c
}

func TestGeminiToolCount(t *testing.T) {
	var decls []string
	for i := range MaxGeminiTools + 1 {
		decls = append(decls, fmt.Sprintf(`{"name":"t%d"}`, i))
	}
	assert.Empty(t, Check(Gemini, []byte(geminiBody(strings.Join(decls[:MaxGeminiTools], ","), ""))))
	vs := Check(Gemini, []byte(geminiBody(strings.Join(decls, ","), "")))
	if assert.Len(t, vs, 1) {
		assert.Equal(t, "tool-count", vs[0].Rule)
	}
}

func TestRulesEveryProvider(t *testing.T) {
	for _, p := range []string{OpenAIChat, OpenAIResponses, Anthropic, Gemini} {
		rs := Rules(p)
		assert.NotEmpty(t, rs, p)
		for _, r := range rs {
			assert.NotEmpty(t, r.Source, r.ID)
			assert.NotEmpty(t, r.Action, r.ID)
		}
	}
	assert.Len(t, Rules(""), len(rules))
}

// FuzzCheck: the checker reads any bytes as a body for any provider
// without panicking, and reports a body that is not JSON.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","tools":[{"type":"function","function":{"name":"a"}}],"messages":[{"role":"tool","tool_call_id":1}]}`,
		`{"model":"m","max_tokens":"x","system":"  ","messages":[{"role":"user","content":[{"type":"tool_result","is_error":true,"content":[{"type":"text","text":" "}]}]}]}`,
		`{"input":[{"type":"function_call"},{"role":"assistant","content":[]}],"tools":[{"type":"tool_search"}]}`,
		`[]`, `{`, `null`, `{"tools":{}}`,
	} {
		for p := range uint8(4) {
			f.Add([]byte(s), p)
		}
	}
	f.Add([]byte(`{"tools":[{"functionDeclarations":[{"name":"a","parameters":{"properties":{"x":{"anyOf":[{"$ref":1}]}}}}]}],"contents":[{"role":"model","parts":[{"functionCall":{}}]},{"role":"user","parts":[{"functionResponse":{"id":1}}]}]}`), uint8(3))
	provs := []string{OpenAIChat, OpenAIResponses, Anthropic, Gemini}
	f.Fuzz(func(t *testing.T, body []byte, p uint8) {
		vs := Check(provs[int(p)%len(provs)], body)
		var v any
		if json.Unmarshal(body, &v) != nil && len(vs) == 0 {
			t.Fatalf("no violation for a body that is not JSON")
		}
	})
}

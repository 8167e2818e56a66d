package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAllowedTools: a native narrowing that allows a name tools[] does
// not declare, or Gemini's allowedFunctionNames outside mode ANY or
// VALIDATED, breaks the rule; one that names declared tools does not.
func TestAllowedTools(t *testing.T) {
	for _, tc := range []struct {
		p, body string
		want    []string
	}{
		{OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"a"}}]}}}`, nil},
		{OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"b"}}]}}}`,
			[]string{`allowed-tools: tool_choice.allowed_tools.tools[0]: "b" is not a tools[] entry`}},
		{OpenAIResponses, `{"model":"m","tools":[{"type":"function","name":"a","parameters":{"type":"object"}}],"input":[{"type":"message","role":"user","content":"x"}],"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"a"},{"type":"function","name":"c"},{"type":"tool_search"}]}}`,
			[]string{`allowed-tools: tool_choice.tools[1]: "c" is not a tools[] entry`}},
		{Gemini, `{"tools":[{"functionDeclarations":[{"name":"a","parametersJsonSchema":{"type":"object"}}]}],"contents":[{"role":"user","parts":[{"text":"x"}]}],"toolConfig":{"functionCallingConfig":{"mode":"VALIDATED","allowedFunctionNames":["a"]}}}`, nil},
		{Gemini, `{"tools":[{"functionDeclarations":[{"name":"a","parametersJsonSchema":{"type":"object"}}]}],"contents":[{"role":"user","parts":[{"text":"x"}]}],"toolConfig":{"functionCallingConfig":{"mode":"AUTO","allowedFunctionNames":["z"]}}}`,
			[]string{`allowed-tools: toolConfig.functionCallingConfig.mode: allowedFunctionNames with mode "AUTO": only ANY or VALIDATED`, `allowed-tools: toolConfig.functionCallingConfig.allowedFunctionNames[0]: "z" is not a declared function`}},
	} {
		var got []string
		for _, v := range Check(tc.p, []byte(tc.body)) {
			if v.Rule == "allowed-tools" {
				got = append(got, v.String())
			}
		}
		assert.Equal(t, tc.want, got, tc.body)
	}
}

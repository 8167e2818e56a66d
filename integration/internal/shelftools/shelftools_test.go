package shelftools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

func session(t *testing.T, p request.Provider, mode request.ToolSearch) *request.Session {
	t.Helper()
	reg := registry.New(nil)
	h := func(context.Context, json.RawMessage) (registry.Result, error) {
		return registry.Result{Text: "ok"}, nil
	}
	require.NoError(t, reg.Register(registry.Tool{Name: "read_file", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`), Handler: h}))
	require.NoError(t, reg.Register(registry.Tool{Name: "get_weather", Description: "Weather for a city.", RawSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`), Handler: h, DeferLoading: registry.DeferTrue}))
	var extra map[string]json.RawMessage
	if p == request.Anthropic { // the one provider that requires its token limit
		extra = map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}
	}
	s, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: p, Model: "claude-sonnet-4-5", System: "Be brief.",
		ToolSearch: mode, Extra: extra})
	require.NoError(t, err)
	return s
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		p         request.Provider
		indexInTo string // where the name index rides: "system" or "tool_search"
	}{
		{request.Anthropic, "tool_search"},
		{request.OpenAIChat, "system"},
		{request.OpenAIResponses, "system"},
	} {
		t.Run(string(tc.p), func(t *testing.T) {
			system, tools, err := Read(session(t, tc.p, request.Portable))
			require.NoError(t, err)
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			assert.Equal(t, []string{"read_file", "tool_search", "defer_execute"}, names)
			assert.JSONEq(t, `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, string(tools[0].Schema))
			assert.Equal(t, "Read a file.", tools[0].Description)
			index := "<available_deferred_tools>\nget_weather\n</available_deferred_tools>"
			if tc.indexInTo == "system" {
				assert.Equal(t, "Be brief.\n\n"+index, system)
				assert.NotContains(t, tools[1].Description, index)
			} else {
				assert.Equal(t, "Be brief.", system)
				assert.Contains(t, tools[1].Description, index)
			}
		})
	}
}

func TestReadRefusesNative(t *testing.T) {
	_, _, err := Read(session(t, request.Anthropic, request.Native))
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.ErrUnsupported), "%v", err)
}

// TestParseGemini reads a prefix in the shape of Gemini's generateContent
// request (systemInstruction.parts, tools[].functionDeclarations with
// parametersJsonSchema, then "contents":[), the shape of issue 36's
// request.Gemini encoder, which is not on this branch: written by hand.
func TestParseGemini(t *testing.T) {
	prefix := `{"systemInstruction":{"parts":[{"text":"Be brief."},{"text":"<available_deferred_tools>\nget_weather\n</available_deferred_tools>"}]},` +
		`"tools":[{"functionDeclarations":[{"name":"read_file","description":"Read a file.","parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},` +
		`{"name":"tool_search","description":"Load deferred tools.","parametersJsonSchema":{"type":"object","properties":{"queries":{"type":"array","items":{"type":"string"}}}}}]}],"contents":[`
	system, tools, err := parse([]byte(prefix))
	require.NoError(t, err)
	assert.Equal(t, "Be brief.\n\n<available_deferred_tools>\nget_weather\n</available_deferred_tools>", system)
	require.Len(t, tools, 2)
	assert.Equal(t, "read_file", tools[0].Name)
	assert.Equal(t, "Read a file.", tools[0].Description)
	assert.Equal(t, `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, string(tools[0].Schema))
	assert.Equal(t, "tool_search", tools[1].Name)
}

func TestParseRefuses(t *testing.T) {
	for name, prefix := range map[string]string{
		"not JSON":         `{"model":`,
		"a provider tool":  `{"tools":[{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}],"messages":[`,
		"an image system":  `{"system":[{"type":"image","source":{}}],"messages":[`,
		"a schema-less fn": `{"tools":[{"functionDeclarations":[{"name":"x","description":"y"}]}],"contents":[`,
		"a string schema":  `{"tools":[{"name":"x","input_schema":"{}"}],"messages":[`,
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := parse([]byte(prefix))
			require.Error(t, err)
			assert.True(t, errors.Is(err, errors.ErrUnsupported), "%v", err)
		})
	}
}

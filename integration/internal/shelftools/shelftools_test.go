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
	s, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: p, Model: "claude-sonnet-4-5", System: "Be brief.",
		ToolSearch: mode, Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}})
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

package request_test

import (
	"encoding/json"
	"fmt"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// ExampleConfig_toolSearch builds an Anthropic request with the provider's
// own tool search: the deferred tool keeps its schema, marked
// defer_loading, after the search tool, which carries the breakpoint.
func ExampleConfig_toolSearch() {
	reg := registry.New(nil)
	_ = reg.Register(
		registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object"}`)},
		registry.Tool{Name: "Deploy", Description: "Deploy the app.", RawSchema: json.RawMessage(`{"type":"object"}`)},
	)
	s, err := request.NewSession(request.Config{
		Snapshot:   reg.Snapshot(),
		Policy:     &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("project", "Defer(Deploy)")}},
		Provider:   request.Anthropic,
		Model:      "claude-test",
		ToolSearch: request.Native,
		Extra:      map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	body, err := s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "ship it"}}})
	fmt.Println(string(body), err)

	_, err = request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: request.OpenAIChat, Model: "gpt-test", ToolSearch: request.Native})
	fmt.Println(err)
	// Output:
	// {"model":"claude-test","max_tokens":1024,"tools":[{"name":"Read","description":"Read a file.","input_schema":{"type":"object"}},{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25","cache_control":{"type":"ephemeral"}},{"name":"Deploy","description":"Deploy the app.","input_schema":{"type":"object"},"defer_loading":true}],"messages":[{"role":"user","content":[{"type":"text","text":"<user_query>ship it</user_query>","cache_control":{"type":"ephemeral"}}]}]} <nil>
	// request: invalid session config: Config.ToolSearch "native": provider "openai-chat" has no native tool search; use Portable (tool_search and defer_execute work on every provider) or the "openai-responses" provider
}

package genkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"

	"github.com/toolshelf/toolshelf/execute"
	shelfgenkit "github.com/toolshelf/toolshelf/integration/genkit"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// Example runs genkit's generate loop with a toolshelf session behind its
// middleware hooks: get_weather is deferred, found with tool_search and
// called through defer_execute, past the dispatcher's hook; the tool list is
// the same on every model call. The model is a stand-in for a plugin's.
func Example() {
	ctx := context.Background()
	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{Name: "get_weather", Description: "Current weather for a city.",
		RawSchema:    json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		DeferLoading: registry.DeferTrue,
		Handler: func(_ context.Context, args json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "Paris: 18°C, light rain"}, nil
		}})
	disp, _ := execute.New(&execute.Options{Hooks: []execute.Hook{{Name: "audit", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
		fmt.Printf("dispatcher: %s via %s, call %s\n", c.Name, c.Via, c.ID)
		return execute.Verdict{}
	}}}})
	s, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: request.Anthropic, Model: "claude-sonnet-4-5",
		System: "Answer with the tools you have.", Dispatcher: disp, Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}})
	if err != nil {
		panic(err)
	}
	a, err := shelfgenkit.New(s)
	if err != nil {
		panic(err)
	}

	g := gk.Init(ctx)
	n := 0
	model := gk.DefineModel(g, "example/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true, SystemRole: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			var names []string
			for _, t := range req.Tools {
				names = append(names, t.Name)
			}
			n++
			fmt.Printf("model call %d, tools %s\n", n, strings.Join(names, " "))
			call := func(name string, input map[string]any) *ai.ModelResponse {
				return &ai.ModelResponse{Message: ai.NewModelMessage(ai.NewToolRequestPart(&ai.ToolRequest{Name: name, Input: input, Ref: fmt.Sprint("call_", n)}))}
			}
			switch n {
			case 1:
				return call("tool_search", map[string]any{"tool_names": []any{"get_weather"}}), nil
			case 2:
				return call("defer_execute", map[string]any{"tool_name": "get_weather", "params": map[string]any{"city": "Paris"}}), nil
			}
			last := req.Messages[len(req.Messages)-1]
			return &ai.ModelResponse{Message: ai.NewModelTextMessage(last.Content[0].ToolResponse.Output.(string))}, nil
		})

	resp, err := gk.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("What is the weather in Paris?"), ai.WithUse(a.Middleware()))
	if err != nil {
		panic(err)
	}
	fmt.Println("answer:", resp.Text())
	// Output:
	// model call 1, tools tool_search defer_execute
	// dispatcher: tool_search via , call call_1
	// model call 2, tools tool_search defer_execute
	// dispatcher: get_weather via defer_execute, call call_2
	// model call 3, tools tool_search defer_execute
	// answer: Paris: 18°C, light rain
}

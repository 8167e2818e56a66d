package eino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/toolshelf/toolshelf/execute"
	shelfeino "github.com/toolshelf/toolshelf/integration/eino"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// exampleModel stands in for a real eino ChatModel: it searches, calls the
// deferred tool through defer_execute, then answers with its result, and
// prints the tool list of every call.
type exampleModel struct{ n int }

func (m *exampleModel) Generate(_ context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	var names []string
	for _, t := range model.GetCommonOptions(nil, opts...).Tools {
		names = append(names, t.Name)
	}
	m.n++
	fmt.Printf("model call %d, tools %s\n", m.n, strings.Join(names, " "))
	call := func(name, args string) *schema.Message {
		return schema.AssistantMessage("", []schema.ToolCall{{ID: fmt.Sprint("call_", m.n), Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}})
	}
	switch m.n {
	case 1:
		return call("tool_search", `{"tool_names":["get_weather"]}`), nil
	case 2:
		return call("defer_execute", `{"tool_name":"get_weather","params":{"city":"Paris"}}`), nil
	}
	return schema.AssistantMessage(in[len(in)-1].Content, nil), nil
}

func (m *exampleModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	return schema.StreamReaderFromArray([]*schema.Message{msg}), err
}

func (m *exampleModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

// Example runs eino's ChatModelAgent with a toolshelf session as its tool
// layer: get_weather is deferred, found with tool_search and called through
// defer_execute, past the dispatcher's hook; the tool list is the same on
// every model call.
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

	a, err := shelfeino.New(s)
	if err != nil {
		panic(err)
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "assistant", Description: "answers questions", Model: &exampleModel{},
		ToolsConfig: a.ToolsConfig(),
		Handlers:    []adk.ChatModelAgentMiddleware{a.Middleware()},
	})
	if err != nil {
		panic(err)
	}
	events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "What is the weather in Paris?")
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			panic(ev.Err)
		}
		if msg, err := ev.Output.MessageOutput.GetMessage(); err == nil && msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
			fmt.Println("answer:", msg.Content)
		}
	}
	// Output:
	// model call 1, tools tool_search defer_execute
	// dispatcher: tool_search via , call call_1
	// model call 2, tools tool_search defer_execute
	// dispatcher: get_weather via defer_execute, call call_2
	// model call 3, tools tool_search defer_execute
	// answer: Paris: 18°C, light rain
}

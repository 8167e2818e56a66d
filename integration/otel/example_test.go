package otel_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	toolotel "github.com/toolshelf/toolshelf/integration/otel"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// One option, execute.Options.Observer, makes spans of a search, the load
// it made and the call of the loaded tool.
func ExampleObserver() {
	spans := tracetest.NewInMemoryExporter()
	obs, _ := toolotel.New(&toolotel.Options{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))})
	disp, _ := execute.New(&execute.Options{Observer: obs})

	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{Name: "VideoGen", Description: "Generate a short video from a prompt.", DeferLoading: registry.DeferTrue,
		RawSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}`),
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "video.mp4"}, nil
		}})
	s, _ := request.NewSession(request.Config{ID: "s1", Snapshot: reg.Snapshot(), Policy: &deferral.Policy{}, Provider: request.OpenAIChat, Model: "gpt-4o", Dispatcher: disp})
	ctx := context.Background()
	s.Call(execute.WithCallID(ctx, "call_1"), "tool_search", json.RawMessage(`{"queries":["generate video"]}`))
	s.Call(execute.WithCallID(ctx, "call_2"), "defer_execute", json.RawMessage(`{"tool_name":"VideoGen","params":{"prompt":"a cat"}}`))

	for _, sp := range spans.GetSpans() {
		fmt.Print(sp.Name, ":")
		for _, kv := range sp.Attributes {
			switch kv.Key {
			case "gen_ai.tool.name", "gen_ai.tool.call.id", "toolshelf.outcome":
				fmt.Printf(" %s=%s", kv.Key, kv.Value.Emit())
			}
		}
		fmt.Println()
	}
	// Output:
	// load_tool VideoGen: gen_ai.tool.name=VideoGen
	// tool_search: gen_ai.tool.name=tool_search gen_ai.tool.call.id=call_1 toolshelf.outcome=searched
	// execute_tool VideoGen: gen_ai.tool.name=VideoGen gen_ai.tool.call.id=call_2 toolshelf.outcome=completed
}

package execute_test

import (
	"context"
	"encoding/json"
	"fmt"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// A deny rule on the target blocks it through defer_execute as well as
// directly; the event names the target and the wrapper. The harness gives
// the dispatcher to its sessions, which run every call through it.
func ExampleNew() {
	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{
		Name:         "ImageGen",
		RawSchema:    json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}`),
		DeferLoading: registry.DeferTrue,
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "image.png"}, nil
		},
	})
	d, _ := execute.New(&execute.Options{
		Permissions: execute.MustPermissions("Deny(ImageGen)"),
		Observer: execute.OnEvent(func(ev execute.Event) {
			fmt.Printf("event: %s %s via %s by %s\n", ev.Kind, ev.Tool, ev.Via, ev.Rule)
		}),
	})
	s, _ := request.NewSession(request.Config{ID: "s1", Snapshot: reg.Snapshot(), Policy: &deferral.Policy{}, Provider: request.OpenAIChat, Model: "gpt-4o", Dispatcher: d})
	r := s.Call(context.Background(), "defer_execute", json.RawMessage(`{"tool_name":"ImageGen","params":{"prompt":"a cat"}}`))
	fmt.Println(r.IsError, r.Text)
	// Output:
	// event: denied ImageGen via defer_execute by Deny(ImageGen)
	// true Permission denied: the harness's rules do not allow "ImageGen". Nothing was run. Do not retry it; do the task another way, or tell the user what you wanted to do.
}

// A deferred tool called before its schema was loaded does not run: the
// answer carries the schema, and the schema counts as loaded from then on.
func ExampleNew_unloaded() {
	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{
		Name:         "WebFetch",
		RawSchema:    json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`),
		DeferLoading: registry.DeferTrue,
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "<html>"}, nil
		},
	})
	d, _ := execute.New(nil)
	s, _ := request.NewSession(request.Config{ID: "s1", Snapshot: reg.Snapshot(), Policy: &deferral.Policy{}, Provider: request.OpenAIChat, Model: "gpt-4o", Dispatcher: d})

	r := s.Call(context.Background(), "defer_execute", json.RawMessage(`{"tool_name":"WebFetch","params":{"uri":"https://go.dev"}}`))
	fmt.Println(r.Text)
	r = s.Call(context.Background(), "defer_execute", json.RawMessage(`{"tool_name":"WebFetch","params":{"url":"https://go.dev"}}`))
	fmt.Println(r.Text)
	// Output:
	// Tool "WebFetch" is deferred and its schema had not been loaded, so nothing was run. Its schema, loaded now:
	// {"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}
	// Problems with the params you sent:
	// - /url: required property is missing
	// Call it again with params that match this schema. A correct call looks like: defer_execute {"tool_name":"WebFetch","params":{"url":"<string>"}}
	// <html>
}

func ExampleParsePermission() {
	for _, s := range []string{"Deny(ImageGen)", "Ask(mcp__github__*)", "Block(Bash)"} {
		r, err := execute.ParsePermission(s)
		fmt.Println(r, err)
	}
	// Output:
	// Deny(ImageGen) <nil>
	// Ask(mcp__github__*) <nil>
	// Unset() execute: invalid permission rule "Block(Bash)": unknown action "Block": want Allow, Ask or Deny
}

package sdkbridge_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/toolshelf/toolshelf/integration/sdkbridge"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// A session's bodies go through anthropic-sdk-go unchanged, turn after
// turn; the provider is request/replytest's scripted server, which
// answers with the model's next reply and records what it received.
func Example() {
	reg := registry.New(nil)
	err := reg.Register(registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "package main"}, nil
		}})
	if err != nil {
		panic(err)
	}
	s, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: request.Anthropic, Model: "claude-sonnet-4-5",
		Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}})
	if err != nil {
		panic(err)
	}
	srv := replytest.NewServer(request.Anthropic,
		request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "toolu_1", Name: "Read", Arguments: json.RawMessage(`{"path":"main.go"}`)}}},
		request.Message{Role: request.RoleAssistant, Text: "It is package main."})
	defer srv.Close()
	client := anthropic.NewClient(aoption.WithBaseURL(srv.URL), aoption.WithAPIKey("sk-ant-test"))

	ctx := context.Background()
	turn := request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "Which package is main.go?"}}}
	for {
		body, err := s.BuildRequest(turn)
		if err != nil {
			panic(err)
		}
		reply, err := sdkbridge.Anthropic(ctx, &client, body)
		if err != nil {
			panic(err)
		}
		if len(reply.Message.ToolCalls) == 0 {
			fmt.Println(reply.Message.Text)
			break
		}
		turn = request.Turn{Messages: []request.Message{reply.Message}}
		for _, c := range reply.Message.ToolCalls {
			res := s.Call(ctx, c.Name, c.Arguments)
			turn.Messages = append(turn.Messages, request.Message{Role: request.RoleTool, CallID: c.ID, Text: res.Text, IsError: res.IsError})
		}
	}
	fmt.Println(len(srv.Bodies()), "requests")
	// Output:
	// It is package main.
	// 2 requests
}

// A toolshelf body goes through openai-go unchanged; the reply comes back
// decoded. (body would come from Session.BuildRequest.)
func ExampleOpenAI() {
	srv := replytest.NewServer(request.OpenAIResponses, request.Message{Role: request.RoleAssistant, Text: "Hi."})
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test"))
	body := []byte(`{"model":"gpt-5.4","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Hello"}]}]}`)
	reply, err := sdkbridge.OpenAI(context.Background(), &client, request.OpenAIResponses, body)
	if err != nil {
		panic(err)
	}
	fmt.Println(reply.Message.Text)
	// Output: Hi.
}

// The same with anthropic-sdk-go; a refusal would be an *sdkbridge.Error:
// errors.Is(err, sdkbridge.ErrRateLimited), with RetryAfter set.
func ExampleAnthropic() {
	srv := replytest.NewServer(request.Anthropic, request.Message{Role: request.RoleAssistant, Text: "Hi."})
	defer srv.Close()
	client := anthropic.NewClient(aoption.WithBaseURL(srv.URL), aoption.WithAPIKey("sk-ant-test"))
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":[{"type":"text","text":"Hello"}]}]}`)
	reply, err := sdkbridge.Anthropic(context.Background(), &client, body)
	if err != nil {
		panic(err)
	}
	fmt.Println(reply.Message.Text, reply.StopReason)
	// Output: Hi. end_turn
}

// With google.golang.org/genai the client is built with
// sdkbridge.GeminiHTTPClient, which puts toolshelf's body on the wire in
// place of the one genai builds; everything else (key, path, retries) is
// the SDK's.
func ExampleGemini() {
	srv := replytest.NewServer(request.Gemini, request.Message{Role: request.RoleAssistant, Text: "Hi."})
	defer srv.Close()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPClient:  sdkbridge.GeminiHTTPClient(nil),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		panic(err)
	}
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"Hello"}]}]}`)
	reply, err := sdkbridge.Gemini(context.Background(), client, "gemini-2.5-flash", body, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(reply.Message.Text, reply.StopReason)
	// Output: Hi. STOP
}

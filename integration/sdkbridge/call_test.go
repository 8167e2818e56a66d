package sdkbridge_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolshelf/toolshelf/integration/sdkbridge"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// answer is a harness's loop written once against sdkbridge.Call: it runs
// the session's tool calls until the model answers.
func answer(ctx context.Context, s *request.Session, call sdkbridge.Call, user string) (string, error) {
	turn := request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: user}}}
	for {
		body, err := s.BuildRequest(turn)
		if err != nil {
			return "", err
		}
		reply, err := call(ctx, body)
		if err != nil {
			return "", err
		}
		if len(reply.Message.ToolCalls) == 0 {
			return reply.Message.Text, nil
		}
		turn = request.Turn{Messages: []request.Message{reply.Message}}
		for _, c := range reply.Message.ToolCalls {
			res := s.Call(ctx, c.Name, c.Arguments)
			turn.Messages = append(turn.Messages, request.Message{Role: request.RoleTool, CallID: c.ID, Text: res.Text, IsError: res.IsError})
		}
	}
}

// TestOneCallShape: the same loop runs over every provider's SDK, whole
// and streamed, through the one Call shape the three constructors return.
func TestOneCallShape(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "package main"}, nil
		}}))
	ctx := context.Background()
	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini} {
		for _, streamed := range []bool{false, true} {
			name := string(p)
			if streamed {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				srv := replytest.NewServer(p,
					request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "call_1", Name: "Read", Arguments: json.RawMessage(`{"path":"main.go"}`)}}},
					request.Message{Role: request.RoleAssistant, Text: "It is package main."})
				defer srv.Close()
				events := 0
				var onEvent func(string, []byte)
				if streamed {
					onEvent = func(string, []byte) { events++ }
				}
				extra := map[string]json.RawMessage{}
				switch p {
				case request.Anthropic:
					extra["max_tokens"] = json.RawMessage("1024")
				case request.Gemini:
					extra["generationConfig"] = json.RawMessage(`{"maxOutputTokens":1024}`)
				}
				if streamed && p != request.Gemini {
					extra["stream"] = json.RawMessage("true")
				}
				var call sdkbridge.Call
				switch p {
				case request.Anthropic:
					c := anthropic.NewClient(aoption.WithBaseURL(srv.URL), aoption.WithAPIKey("k"))
					call = sdkbridge.AnthropicCall(&c, onEvent)
				case request.Gemini:
					c, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
						HTTPClient: sdkbridge.GeminiHTTPClient(nil), HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
					require.NoError(t, err)
					call = sdkbridge.GeminiCall(c, "gemini-2.5-flash", nil, onEvent)
				default:
					c := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("k"))
					call = sdkbridge.OpenAICall(&c, p, onEvent)
				}
				s, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: p, Model: "m", Extra: extra})
				require.NoError(t, err)
				got, err := answer(ctx, s, call, "Which package is main.go?")
				require.NoError(t, err)
				assert.Equal(t, "It is package main.", got)
				assert.Len(t, srv.Bodies(), 2)
				assert.Equal(t, streamed, events > 0, "events seen only when streamed")
			})
		}
	}
}

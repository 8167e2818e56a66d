package sdkbridge

import (
	"context"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/toolshelf/toolshelf/request"
)

// A Call sends one request body and returns the decoded reply: the model
// call of a harness's loop, one shape for every provider, whole or
// streamed. [OpenAICall], [AnthropicCall] and [GeminiCall] make one from a
// client; a loop written against Call changes provider by changing the
// constructor (and the session's Config.Provider).
type Call func(ctx context.Context, body []byte) (request.Reply, error)

// OpenAICall is [OpenAI] (onEvent nil) or [OpenAIStream] (onEvent not
// nil; the body must ask for a stream) through c for p, as a [Call].
func OpenAICall(c *openai.Client, p request.Provider, onEvent func(name string, data []byte), opts ...option.RequestOption) Call {
	if onEvent != nil {
		return func(ctx context.Context, body []byte) (request.Reply, error) {
			return OpenAIStream(ctx, c, p, body, onEvent, opts...)
		}
	}
	return func(ctx context.Context, body []byte) (request.Reply, error) {
		return OpenAI(ctx, c, p, body, opts...)
	}
}

// AnthropicCall is [Anthropic] (onEvent nil) or [AnthropicStream] (onEvent
// not nil; the body must ask for a stream) through c, as a [Call].
func AnthropicCall(c *anthropic.Client, onEvent func(name string, data []byte), opts ...aoption.RequestOption) Call {
	if onEvent != nil {
		return func(ctx context.Context, body []byte) (request.Reply, error) {
			return AnthropicStream(ctx, c, body, onEvent, opts...)
		}
	}
	return func(ctx context.Context, body []byte) (request.Reply, error) {
		return Anthropic(ctx, c, body, opts...)
	}
}

// GeminiCall is [Gemini] (onEvent nil) or [GeminiStream] (onEvent not
// nil) through c for model, as a [Call]; c must have been made with
// [GeminiHTTPClient].
func GeminiCall(c *genai.Client, model string, config *genai.GenerateContentConfig, onEvent func(name string, data []byte)) Call {
	if onEvent != nil {
		return func(ctx context.Context, body []byte) (request.Reply, error) {
			return GeminiStream(ctx, c, model, body, config, onEvent)
		}
	}
	return func(ctx context.Context, body []byte) (request.Reply, error) {
		return Gemini(ctx, c, model, body, config)
	}
}

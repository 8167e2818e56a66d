package sdkbridge

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolshelf/toolshelf/request"
)

// OpenAI sends body, a toolshelf request body for p (request.OpenAIChat or
// request.OpenAIResponses), through c unchanged and decodes the reply.
// opts are further per-request options (headers, retries).
func OpenAI(ctx context.Context, c *openai.Client, p request.Provider, body []byte, opts ...option.RequestOption) (request.Reply, error) {
	var raw []byte
	opts = append(opts, option.WithRequestBody("application/json", body), option.WithResponseBodyInto(&raw))
	var err error
	switch p {
	case request.OpenAIChat:
		_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{}, opts...)
	case request.OpenAIResponses:
		_, err = c.Responses.New(ctx, responses.ResponseNewParams{}, opts...)
	default:
		return request.Reply{}, fmt.Errorf("sdkbridge: %w: %q is not an OpenAI API", request.ErrUnknownProvider, p)
	}
	if err != nil {
		return request.Reply{}, Classify(p, err)
	}
	return decode(p, http.StatusOK, raw)
}

// Anthropic sends body, a toolshelf request body for request.Anthropic,
// through c unchanged and decodes the reply.
func Anthropic(ctx context.Context, c *anthropic.Client, body []byte, opts ...aoption.RequestOption) (request.Reply, error) {
	var raw []byte
	opts = append(opts, aoption.WithRequestBody("application/json", body), aoption.WithResponseBodyInto(&raw))
	if _, err := c.Messages.New(ctx, anthropic.MessageNewParams{}, opts...); err != nil {
		return request.Reply{}, Classify(request.Anthropic, err)
	}
	return decode(request.Anthropic, http.StatusOK, raw)
}

// Betas returns the request option that names betas — a session's
// request.Session.NativeBetas, needed by request.Config.NativeToolChanges
// on Anthropic — in the anthropic-beta header, after those the request
// already names. With none it changes nothing. Pass it to [Anthropic] or
// [AnthropicStream].
func Betas(betas []string) aoption.RequestOption {
	betas = append([]string(nil), betas...)
	return aoption.WithMiddleware(func(r *http.Request, next aoption.MiddlewareNext) (*http.Response, error) {
		if len(betas) > 0 {
			r.Header.Set("anthropic-beta", strings.Join(append(r.Header.Values("anthropic-beta"), betas...), ","))
		}
		return next(r)
	})
}

// decode decodes a reply body; one that carries an error object instead
// of a reply is classified like an HTTP error.
func decode(p request.Provider, status int, raw []byte) (request.Reply, error) {
	rep, err := request.DecodeReply(p, raw)
	if err == nil {
		return rep, nil
	}
	if typ, code, msg := errorFields(raw); msg != "" || code != "" || typ == "error" {
		c := classify(p, 0, nil, raw)
		c.cause = err
		return request.Reply{}, c
	}
	return request.Reply{}, err
}

// OpenAIStream sends body (with "stream": true) through c's streaming call
// for p and feeds every event into a [request.Stream]: the reply is the one
// the whole stream describes. On Chat Completions, where openai-go ends the
// stream at [DONE] without passing it on, the [DONE] is fed to the stream
// when the SDK's stream ends cleanly. onEvent, when not nil, sees each event
// first (for a harness that shows deltas as they come).
func OpenAIStream(ctx context.Context, c *openai.Client, p request.Provider, body []byte, onEvent func(name string, data []byte), opts ...option.RequestOption) (request.Reply, error) {
	st, err := request.NewStream(p)
	if err != nil {
		return request.Reply{}, err
	}
	opts = append(opts, option.WithRequestBody("application/json", body))
	feed := func(name string, data []byte) error {
		if onEvent != nil {
			onEvent(name, data)
		}
		if p == request.OpenAIResponses && (name == "error" || name == "response.failed") {
			return classify(p, 0, nil, data)
		}
		return st.Event(name, data)
	}
	switch p {
	case request.OpenAIChat:
		s := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{}, opts...)
		defer s.Close()
		for s.Next() {
			if err := feed("", []byte(s.Current().RawJSON())); err != nil {
				return request.Reply{}, err
			}
		}
		if err := s.Err(); err != nil {
			return request.Reply{}, Classify(p, err)
		}
		// openai-go consumed the [DONE] that ends a Chat Completions stream.
		if err := feed("", []byte("[DONE]")); err != nil {
			return request.Reply{}, err
		}
	case request.OpenAIResponses:
		s := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{}, opts...)
		defer s.Close()
		for s.Next() {
			ev := s.Current()
			if err := feed(ev.Type, []byte(ev.RawJSON())); err != nil {
				return request.Reply{}, err
			}
		}
		if err := s.Err(); err != nil {
			return request.Reply{}, Classify(p, err)
		}
	default:
		return request.Reply{}, fmt.Errorf("sdkbridge: %w: %q is not an OpenAI API", request.ErrUnknownProvider, p)
	}
	return st.Reply()
}

// AnthropicStream sends body (with "stream": true) through c's streaming
// call and feeds every event into a [request.Stream]. An error event in the
// stream (an overload mid-answer) is classified like an HTTP error.
func AnthropicStream(ctx context.Context, c *anthropic.Client, body []byte, onEvent func(name string, data []byte), opts ...aoption.RequestOption) (request.Reply, error) {
	st, err := request.NewStream(request.Anthropic)
	if err != nil {
		return request.Reply{}, err
	}
	opts = append(opts, aoption.WithRequestBody("application/json", body))
	s := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{}, opts...)
	defer s.Close()
	for s.Next() {
		ev := s.Current()
		data := []byte(ev.RawJSON())
		if onEvent != nil {
			onEvent(ev.Type, data)
		}
		if err := st.Event(ev.Type, data); err != nil {
			return request.Reply{}, err
		}
	}
	if err := s.Err(); err != nil {
		return request.Reply{}, Classify(request.Anthropic, err)
	}
	return st.Reply()
}

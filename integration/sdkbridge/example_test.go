package sdkbridge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/toolshelf/toolshelf/integration/sdkbridge"
	"github.com/toolshelf/toolshelf/request"
)

// provider stands in for the API: it answers every request with reply.
func provider(reply string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
}

// A toolshelf body goes through openai-go unchanged; the reply comes back
// decoded. (body would come from Session.BuildRequest.)
func ExampleOpenAI() {
	srv := provider(`{"id":"r","object":"response","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi."}]}]}`)
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
	srv := provider(`{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"Hi."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`)
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
	srv := provider(`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1}}`)
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
	fmt.Println(reply.Message.Text, reply.Usage.InputTokens)
	// Output: Hi. 3
}

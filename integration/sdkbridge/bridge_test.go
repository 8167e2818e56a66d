package sdkbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// fake is a provider endpoint: it records the body of every request and
// answers with a fixed status, headers and body.
type fake struct {
	mu     sync.Mutex
	got    [][]byte
	betas  []string // the anthropic-beta header of each request
	status int
	header map[string]string
	reply  string
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got = append(f.got, b)
	f.betas = append(f.betas, r.Header.Get("anthropic-beta"))
	f.mu.Unlock()
	for k, v := range f.header {
		w.Header().Set(k, v)
	}
	if f.header["Content-Type"] == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(cmpStatus(f.status))
	io.WriteString(w, f.reply)
}

func cmpStatus(s int) int {
	if s == 0 {
		return http.StatusOK
	}
	return s
}

// serve starts f and returns clients of both SDKs pointed at it, without
// retries.
func serve(t *testing.T, f *fake) (*openai.Client, *anthropic.Client) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	oc := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	ac := anthropic.NewClient(aoption.WithBaseURL(srv.URL), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
	return &oc, &ac
}

// body builds a toolshelf request body for p over a small catalog with
// deferred tools and a tool call in the history; stream asks for a stream.
func body(t *testing.T, p request.Provider, stream bool) []byte {
	t.Helper()
	reg := registry.New(nil)
	for _, n := range []string{"alpha", "beta"} {
		require.NoError(t, reg.Register(registry.Tool{Name: n, Description: "Tool " + n + ".", RawSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}))
	}
	extra := map[string]json.RawMessage{"max_tokens": json.RawMessage(`1024`)}
	if p != request.Anthropic {
		extra = map[string]json.RawMessage{}
	}
	if stream {
		extra["stream"] = json.RawMessage(`true`)
	}
	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(), Provider: p, Model: "gpt-5.4", System: "Be brief.", Extra: extra,
		Policy: &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(beta)")}},
	})
	require.NoError(t, err)
	b, err := s.AppendRequest(nil, request.Turn{Messages: []request.Message{
		{Role: request.RoleUser, Text: "run alpha"},
		{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "call_1", Name: "alpha", Arguments: json.RawMessage(`{"x":"é \u2028"}`)}}},
		{Role: request.RoleTool, CallID: "call_1", Text: "done"},
		{Role: request.RoleUser, Text: "thanks"},
	}})
	require.NoError(t, err)
	return b
}

// Whole replies as the providers document them.
var replies = map[request.Provider]string{
	request.OpenAIChat:      `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5.4","choices":[{"index":0,"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
	request.OpenAIResponses: `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5.4","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello.","annotations":[]}]}],"usage":{"input_tokens":10,"output_tokens":2,"total_tokens":12}}`,
	request.Anthropic:       `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Hello."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`,
}

// Streams as the providers send them.
var streams = map[request.Provider]string{
	request.OpenAIChat: `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"lo."},"finish_reason":"stop"}]}

data: [DONE]

`,
	request.OpenAIResponses: `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello."}

event: response.completed
data: {"type":"response.completed","sequence_number":3,"response":{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello.","annotations":[]}]}],"usage":{"input_tokens":10,"output_tokens":2,"total_tokens":12}}}

`,
	request.Anthropic: `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type":"ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}

event: message_stop
data: {"type":"message_stop"}

`,
}

// send runs the bridge for p, whole or streamed.
func send(oc *openai.Client, ac *anthropic.Client, p request.Provider, b []byte, stream bool) (request.Reply, error) {
	ctx := context.Background()
	switch {
	case p == request.Anthropic && stream:
		return AnthropicStream(ctx, ac, b, nil)
	case p == request.Anthropic:
		return Anthropic(ctx, ac, b)
	case stream:
		return OpenAIStream(ctx, oc, p, b, nil)
	}
	return OpenAI(ctx, oc, p, b)
}

// TestBodyUnchanged sends a toolshelf body through each official SDK,
// whole and streamed: the bytes that reach the server are AppendRequest's,
// and the reply decodes to the provider's text. The Chat Completions stream
// ends with [DONE], which openai-go swallows: the bridge puts it back.
func TestBodyUnchanged(t *testing.T) {
	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", p, stream), func(t *testing.T) {
				f := &fake{reply: replies[p]}
				if stream {
					f.reply, f.header = streams[p], map[string]string{"Content-Type": "text/event-stream"}
				}
				oc, ac := serve(t, f)
				b := body(t, p, stream)
				rep, err := send(oc, ac, p, b, stream)
				require.NoError(t, err)
				require.Len(t, f.got, 1)
				assert.True(t, bytes.Equal(b, f.got[0]), "the SDK sent other bytes:\n%s\n%s", b, f.got[0])
				assert.Equal(t, "Hello.", rep.Message.Text)
				assert.Equal(t, request.RoleAssistant, rep.Message.Role)
			})
		}
	}
}

// TestStreamErrorEvent: an error sent inside a stream (Anthropic's error
// event, a Responses response.failed, a Chat chunk with an error) is
// classified like an HTTP error.
func TestStreamErrorEvent(t *testing.T) {
	f := &fake{header: map[string]string{"Content-Type": "text/event-stream"}, reply: `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}

event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

`}
	_, ac := serve(t, f)
	_, err := AnthropicStream(context.Background(), ac, body(t, request.Anthropic, true), nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrOverloaded)

	f = &fake{header: map[string]string{"Content-Type": "text/event-stream"}, reply: `event: response.failed
data: {"type":"response.failed","sequence_number":1,"response":{"id":"r","object":"response","status":"failed","output":[],"error":{"code":"rate_limit_exceeded","message":"Rate limit reached"}}}

`}
	oc, _ := serve(t, f)
	_, err = OpenAIStream(context.Background(), oc, request.OpenAIResponses, body(t, request.OpenAIResponses, true), nil)
	assert.ErrorIs(t, err, ErrRateLimited)

	f = &fake{header: map[string]string{"Content-Type": "text/event-stream"}, reply: "data: {\"error\":{\"message\":\"The server is overloaded\",\"type\":\"server_error\",\"code\":\"server_is_overloaded\"}}\n\n"}
	oc, _ = serve(t, f)
	_, err = OpenAIStream(context.Background(), oc, request.OpenAIChat, body(t, request.OpenAIChat, true), nil)
	assert.ErrorIs(t, err, ErrOverloaded)
	var c *Error
	require.True(t, errors.As(err, &c))
	assert.Zero(t, c.Status, "an error inside a stream has no status of its own")
}

// TestOnEvent: the harness sees every event, in order, before the
// accumulator (the [DONE] included).
func TestOnEvent(t *testing.T) {
	f := &fake{reply: streams[request.OpenAIChat], header: map[string]string{"Content-Type": "text/event-stream"}}
	oc, _ := serve(t, f)
	var seen []string
	_, err := OpenAIStream(context.Background(), oc, request.OpenAIChat, body(t, request.OpenAIChat, true), func(_ string, data []byte) {
		d := strings.TrimSpace(string(data))
		seen = append(seen, d[:min(8, len(d))])
	})
	require.NoError(t, err)
	assert.Equal(t, []string{`{"id":"c`, `{"id":"c`, "[DONE]"}, seen)
}

// TestBetas: the betas a session with NativeToolChanges reports reach the
// server in the anthropic-beta header, after the harness's own, and the
// body is unchanged.
func TestBetas(t *testing.T) {
	f := &fake{reply: replies[request.Anthropic]}
	_, ac := serve(t, f)
	b := body(t, request.Anthropic, false)
	betas := []string{"mid-conversation-tool-changes-2026-07-01", "inline-tools-2026-09-15"}
	_, err := Anthropic(context.Background(), ac, b, aoption.WithHeader("anthropic-beta", "own-beta"), Betas(betas))
	require.NoError(t, err)
	_, err = Anthropic(context.Background(), ac, b, Betas(nil))
	require.NoError(t, err)
	require.Len(t, f.got, 2)
	assert.Equal(t, []string{"own-beta,mid-conversation-tool-changes-2026-07-01,inline-tools-2026-09-15", ""}, f.betas)
	assert.True(t, bytes.Equal(b, f.got[0]))
}

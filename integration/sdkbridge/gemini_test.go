package sdkbridge

import (
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
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolshelf/toolshelf/request"
)

// geminiFake is a Gemini API endpoint: it records every request's path
// and body, and answers with a fixed status, headers and body.
type geminiFake struct {
	mu     sync.Mutex
	paths  []string
	got    [][]byte
	status int
	header map[string]string
	reply  string
}

func (f *geminiFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.RequestURI())
	f.got = append(f.got, b)
	f.mu.Unlock()
	for k, v := range f.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(cmpStatus(f.status))
	io.WriteString(w, f.reply)
}

// geminiClient returns a genai client pointed at f, bridged unless plain,
// without retries.
func geminiClient(t *testing.T, f *geminiFake, plain bool) *genai.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	hc := GeminiHTTPClient(nil)
	if plain {
		hc = &http.Client{}
	}
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL, RetryOptions: &genai.HTTPRetryOptions{Attempts: genai.Ptr[int32](1)}},
	})
	require.NoError(t, err)
	return c
}

const geminiReply = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Calling beta."},{"functionCall":{"id":"fc_1","name":"tool_search","args":{"tool_names":["beta"]}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":9,"totalTokenCount":129,"cachedContentTokenCount":100},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`

const geminiSSE = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,\"totalTokenCount\":12},\"responseId\":\"r2\"}\r\n\r\n" +
	"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"lo.\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,\"candidatesTokenCount\":2,\"totalTokenCount\":14},\"responseId\":\"r2\"}\r\n\r\n"

// Issue 36: the bytes the Gemini API receives through genai equal
// AppendRequest's, and the reply is request.DecodeReply's.
func TestGeminiBytesThroughSDK(t *testing.T) {
	b := body(t, request.Gemini, false)
	f := &geminiFake{reply: geminiReply}
	c := geminiClient(t, f, false)
	rep, err := Gemini(context.Background(), c, "gemini-2.5-flash", b, nil)
	require.NoError(t, err)
	require.Len(t, f.got, 1)
	assert.Equal(t, string(b), string(f.got[0]), "the body on the wire is toolshelf's, byte for byte")
	assert.Equal(t, "/v1beta/models/gemini-2.5-flash:generateContent", f.paths[0])
	want, err := request.DecodeReply(request.Gemini, []byte(geminiReply))
	require.NoError(t, err)
	assert.Equal(t, want, rep)
	require.Len(t, rep.Message.ToolCalls, 1)
	assert.Equal(t, "tool_search", rep.Message.ToolCalls[0].Name)

	// The same client's own calls are not changed.
	f.reply = `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`
	_, err = c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("hello"), nil)
	require.NoError(t, err)
	assert.Contains(t, string(f.got[1]), `"hello"`)
}

// A client made without GeminiHTTPClient is refused before anything is
// sent: the SDK would send its own body.
func TestGeminiNeedsBridgedClient(t *testing.T) {
	f := &geminiFake{reply: geminiReply}
	c := geminiClient(t, f, true)
	_, err := Gemini(context.Background(), c, "gemini-2.5-flash", body(t, request.Gemini, false), nil)
	require.ErrorIs(t, err, request.ErrConfig)
	assert.Contains(t, err.Error(), "GeminiHTTPClient")
	_, err = GeminiStream(context.Background(), c, "gemini-2.5-flash", body(t, request.Gemini, false), nil, nil)
	require.ErrorIs(t, err, request.ErrConfig)
	assert.Empty(t, f.got)
}

// A stream through genai's GenerateContentStream is fed event by event
// into a request.Stream: the reply is DecodeStream's of the same bytes.
func TestGeminiStreamThroughSDK(t *testing.T) {
	b := body(t, request.Gemini, false)
	f := &geminiFake{reply: geminiSSE, header: map[string]string{"Content-Type": "text/event-stream"}}
	c := geminiClient(t, f, false)
	var seen []string
	rep, err := GeminiStream(context.Background(), c, "gemini-2.5-flash", b, nil, func(name string, data []byte) { seen = append(seen, string(data)) })
	require.NoError(t, err)
	assert.Equal(t, string(b), string(f.got[0]))
	assert.Equal(t, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", f.paths[0])
	want, err := request.DecodeStream(request.Gemini, strings.NewReader(geminiSSE))
	require.NoError(t, err)
	assert.Equal(t, want, rep)
	assert.Equal(t, "Hello.", rep.Message.Text)
	assert.Len(t, seen, 2)
}

// The Gemini API's documented errors (ai.google.dev/gemini-api/docs/troubleshooting)
// are classified, errors.Is-able, with retry advice, through the SDK.
func TestGeminiErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		header map[string]string
		body   string
		kind   error
		retry  time.Duration
	}{
		{"rate limit with RetryInfo", 429, nil,
			`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"31s"}]}}`,
			ErrRateLimited, 31 * time.Second},
		{"rate limit, a year of RetryInfo", 429, nil,
			`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"31536000s"}]}}`,
			ErrRateLimited, maxRetryAfter},
		{"rate limit, Retry-After header", 429, map[string]string{"Retry-After": "7"},
			`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`, ErrRateLimited, 7 * time.Second},
		{"overloaded", 503, nil, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`, ErrOverloaded, 0},
		{"context too long", 400, nil, `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`, ErrContextTooLong, 0},
		{"invalid argument", 400, nil, `{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}`, ErrInvalidRequest, 0},
		{"bad key", 400, nil, `{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}`, ErrInvalidRequest, 0},
		{"permission", 403, nil, `{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}`, ErrAuth, 0},
		{"internal", 500, nil, `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`, ErrServer, 0},
		{"deadline", 504, nil, `{"error":{"code":504,"message":"Deadline exceeded","status":"DEADLINE_EXCEEDED"}}`, ErrServer, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				f := &geminiFake{status: c.status, header: c.header, reply: c.body}
				cl := geminiClient(t, f, false)
				var err error
				if stream {
					_, err = GeminiStream(context.Background(), cl, "gemini-2.5-flash", body(t, request.Gemini, false), nil, nil)
				} else {
					_, err = Gemini(context.Background(), cl, "gemini-2.5-flash", body(t, request.Gemini, false), nil)
				}
				require.ErrorIs(t, err, c.kind, "stream %v: %v", stream, err)
				var e *Error
				require.True(t, errors.As(err, &e))
				assert.Equal(t, c.retry, e.RetryAfter)
				assert.Equal(t, c.status, e.Status)
				assert.Equal(t, request.Gemini, e.Provider)
				var ae genai.APIError
				assert.True(t, errors.As(err, &ae), "the SDK's error stays reachable")
				assert.Equal(t, c.kind == ErrRateLimited || c.kind == ErrOverloaded || c.kind == ErrServer, e.Retryable())
			}
		})
	}
}

// The SSE splitter cuts events across any chunking.
func TestSSESplitter(t *testing.T) {
	for size := 1; size <= len(geminiSSE); size += 7 {
		var s sseSplitter
		var got []string
		for i := 0; i < len(geminiSSE); i += size {
			for _, d := range s.push([]byte(geminiSSE[i:min(i+size, len(geminiSSE))])) {
				got = append(got, string(d))
			}
		}
		for _, d := range s.flush() {
			got = append(got, string(d))
		}
		require.Len(t, got, 2, "chunks of %d", size)
		for _, d := range got {
			assert.True(t, json.Valid([]byte(d)), d)
		}
	}
}

// Classify reads a genai error from a call the harness made itself.
func TestClassifyGeminiSDKError(t *testing.T) {
	f := &geminiFake{status: 429, reply: `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]}}`}
	c := geminiClient(t, f, true)
	_, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("hi"), nil)
	require.Error(t, err)
	got := Classify(request.Gemini, err)
	require.ErrorIs(t, got, ErrRateLimited)
	var e *Error
	require.True(t, errors.As(got, &e))
	assert.Equal(t, 2500*time.Millisecond, e.RetryAfter)
}

// TestClassifyBoundsEveryProvider: issue 43 — a 4 MB Gemini error message
// was kept whole in Error.Message (the other providers' were cut at 64
// KiB), and Classify left a *genai.APIError unclassified (only the value
// form was matched). Every SDK error type Classify documents is
// classified in each form it can be returned in, wrapped or not, and every
// Message is at most 64 KiB of valid UTF-8.
func TestClassifyBoundsEveryProvider(t *testing.T) {
	huge := strings.Repeat("é", 2<<20) // 4 MiB
	for name, err := range map[string]error{
		"genai value":           genai.APIError{Code: 429, Status: "RESOURCE_EXHAUSTED", Message: huge},
		"genai pointer":         &genai.APIError{Code: 429, Status: "RESOURCE_EXHAUSTED", Message: huge},
		"genai pointer wrapped": fmt.Errorf("call: %w", &genai.APIError{Code: 429, Status: "RESOURCE_EXHAUSTED", Message: huge}),
		"genai value wrapped":   fmt.Errorf("call: %w", genai.APIError{Code: 429, Status: "RESOURCE_EXHAUSTED", Message: huge}),
		"openai":                &openai.Error{StatusCode: 429, Type: "rate_limit_exceeded", Message: huge},
	} {
		t.Run(name, func(t *testing.T) {
			p := request.Gemini
			if name == "openai" {
				p = request.OpenAIChat
			}
			got := Classify(p, err)
			require.ErrorIs(t, got, ErrRateLimited)
			var e *Error
			require.True(t, errors.As(got, &e))
			assert.LessOrEqual(t, len(e.Message), maxErrorBody)
			assert.Greater(t, len(e.Message), maxErrorBody-4, "cut at the bound, not emptied")
			assert.True(t, utf8.ValidString(e.Message))
		})
	}
	body := `{"error":{"code":429,"message":"` + huge + `","status":"RESOURCE_EXHAUSTED"}}`
	e := classify(request.OpenAIChat, 429, nil, []byte(body))
	assert.LessOrEqual(t, len(e.Message), maxErrorBody, "a body is read to the bound")
}

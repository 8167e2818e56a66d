package sdkbridge

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/request"
)

// errorCases are the providers' documented error responses: Anthropic's
// error types (docs.anthropic.com, "Errors": invalid_request_error 400,
// authentication_error 401, permission_error 403, not_found_error 404,
// request_too_large 413, rate_limit_error 429, api_error 500,
// overloaded_error 529) and the bodies OpenAI sends (rate_limit_exceeded
// and insufficient_quota 429, context_length_exceeded 400,
// invalid_api_key 401, a 503 overload, server_error 500).
var errorCases = []struct {
	name   string
	p      request.Provider
	status int
	header map[string]string
	body   string
	kind   error
	typ    string
	retry  time.Duration
}{
	{"anthropic rate limit", request.Anthropic, 429, map[string]string{"Retry-After": "17"},
		`{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}`, ErrRateLimited, "rate_limit_error", 17 * time.Second},
	{"anthropic overloaded", request.Anthropic, 529, nil,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, ErrOverloaded, "overloaded_error", 0},
	{"anthropic prompt too long", request.Anthropic, 400, nil,
		`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`, ErrContextTooLong, "invalid_request_error", 0},
	{"anthropic invalid request", request.Anthropic, 400, nil,
		`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`, ErrInvalidRequest, "invalid_request_error", 0},
	{"anthropic authentication", request.Anthropic, 401, nil,
		`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, ErrAuth, "authentication_error", 0},
	{"anthropic permission", request.Anthropic, 403, nil,
		`{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`, ErrAuth, "permission_error", 0},
	{"anthropic not found", request.Anthropic, 404, nil,
		`{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`, ErrInvalidRequest, "not_found_error", 0},
	{"anthropic too large", request.Anthropic, 413, nil,
		`{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`, ErrInvalidRequest, "request_too_large", 0},
	{"anthropic api error", request.Anthropic, 500, nil,
		`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, ErrServer, "api_error", 0},
	{"openai rate limit", request.OpenAIChat, 429, map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"},
		`{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 1.5s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`, ErrRateLimited, "rate_limit_exceeded", 1500 * time.Millisecond},
	{"openai quota", request.OpenAIResponses, 429, nil,
		`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, ErrQuota, "insufficient_quota", 0},
	{"openai context", request.OpenAIChat, 400, nil,
		`{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130563 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, ErrContextTooLong, "context_length_exceeded", 0},
	{"openai responses context", request.OpenAIResponses, 400, nil,
		`{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`, ErrContextTooLong, "context_length_exceeded", 0},
	{"openai invalid request", request.OpenAIResponses, 400, nil,
		`{"error":{"message":"Invalid 'input[95].call_id': string too long.","type":"invalid_request_error","param":"input[95].call_id","code":"string_above_max_length"}}`, ErrInvalidRequest, "string_above_max_length", 0},
	{"openai auth", request.OpenAIChat, 401, nil,
		`{"error":{"message":"Incorrect API key provided: sk-x. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, ErrAuth, "invalid_api_key", 0},
	{"openai overloaded", request.OpenAIChat, 503, map[string]string{"Retry-After": "3"},
		`{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`, ErrOverloaded, "server_error", 3 * time.Second},
	{"openai server error", request.OpenAIResponses, 500, nil,
		`{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`, ErrServer, "server_error", 0},
	{"not json", request.OpenAIChat, 502, nil, `<html>Bad gateway</html>`, ErrServer, "", 0},
}

// TestClassify classifies each documented error body, directly and
// through the official SDK's error (an httptest server sends it).
func TestClassify(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.header {
				h.Set(k, v)
			}
			e := classify(c.p, c.status, h, []byte(c.body))
			assert.ErrorIs(t, e, c.kind)
			assert.Equal(t, c.typ, e.Type)
			assert.Equal(t, c.retry, e.RetryAfter)
			assert.Equal(t, c.kind == ErrRateLimited || c.kind == ErrOverloaded || c.kind == ErrServer, e.Retryable())
			for _, other := range []error{ErrRateLimited, ErrOverloaded, ErrContextTooLong, ErrInvalidRequest, ErrAuth, ErrQuota, ErrServer} {
				if other != c.kind {
					assert.NotErrorIs(t, e, other)
				}
			}

			f := &fake{status: c.status, header: c.header, reply: c.body}
			oc, ac := serve(t, f)
			var err error
			if c.p == request.Anthropic {
				_, err = Anthropic(context.Background(), ac, body(t, c.p, false))
				var sdk *anthropic.Error
				assert.True(t, errors.As(err, &sdk), "the SDK's error stays reachable")
			} else {
				_, err = OpenAI(context.Background(), oc, c.p, body(t, c.p, false))
				var sdk *openai.Error
				assert.True(t, errors.As(err, &sdk), "the SDK's error stays reachable")
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, c.kind, "%v", err)
			var got *Error
			require.True(t, errors.As(err, &got))
			assert.Equal(t, c.status, got.Status)
			assert.Equal(t, c.retry, got.RetryAfter)
		})
	}
}

// TestClassifyHostile: any body classifies without panicking, and a huge
// one is read only up to the bound.
func TestClassifyHostile(t *testing.T) {
	for _, b := range []string{"", "null", "[]", `{"error":null}`, `{"error":"boom"}`, `{"error":{"code":42}}`, `{"response":{"error":null}}`, "\xff\xfe"} {
		e := classify(request.Anthropic, 400, nil, []byte(b))
		assert.ErrorIs(t, e, ErrInvalidRequest, b)
	}
	huge := make([]byte, 10<<20)
	e := classify(request.OpenAIChat, 429, http.Header{"Retry-After": {"-5"}}, huge)
	assert.ErrorIs(t, e, ErrRateLimited)
	assert.Zero(t, e.RetryAfter, "a negative wait is no advice")
	assert.Less(t, len(e.Error()), 1000)
}

// Issue 33: Retry-After as an HTTP date in year 9999 gave a RetryAfter of
// 292 years on a retryable error (the numeric forms were bounded, the date
// form not). Every form is bounded by the documented ceiling, 10 minutes.
func TestRetryAfterBounded(t *testing.T) {
	soon := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	for _, c := range []struct {
		name   string
		h      http.Header
		lo, hi time.Duration
	}{
		{"date in year 9999", http.Header{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}}, maxRetryAfter, maxRetryAfter},
		{"date in 30 s", http.Header{"Retry-After": {soon}}, 25 * time.Second, 30 * time.Second},
		{"date in the past", http.Header{"Retry-After": {"Mon, 01 Jan 2001 00:00:00 GMT"}}, 0, 0},
		{"seconds, huge", http.Header{"Retry-After": {"99999999999999999999"}}, maxRetryAfter, maxRetryAfter},
		{"seconds, a day", http.Header{"Retry-After": {"86400"}}, maxRetryAfter, maxRetryAfter},
		{"seconds, Inf", http.Header{"Retry-After": {"Inf"}}, maxRetryAfter, maxRetryAfter},
		{"seconds, NaN", http.Header{"Retry-After": {"NaN"}}, 0, 0},
		{"seconds", http.Header{"Retry-After": {"17"}}, 17 * time.Second, 17 * time.Second},
		{"ms, huge", http.Header{"Retry-After-Ms": {"1e300"}}, maxRetryAfter, maxRetryAfter},
		{"ms", http.Header{"Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond, 1500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := classify(request.Anthropic, 429, c.h, nil)
			require.True(t, e.Retryable())
			assert.GreaterOrEqual(t, e.RetryAfter, c.lo)
			assert.LessOrEqual(t, e.RetryAfter, c.hi)
			assert.LessOrEqual(t, e.RetryAfter, 10*time.Minute, "the documented ceiling")
		})
	}
}

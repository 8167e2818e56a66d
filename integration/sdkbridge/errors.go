package sdkbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"google.golang.org/genai"

	"github.com/toolshelf/toolshelf/request"
)

// The kinds of provider refusal. An [*Error] wraps exactly one of them, so
// that errors.Is(err, sdkbridge.ErrRateLimited) picks it out.
var (
	// ErrRateLimited: too many requests or tokens for now (429): retry
	// after Error.RetryAfter.
	ErrRateLimited = errors.New("sdkbridge: rate limited")
	// ErrOverloaded: the provider is overloaded (Anthropic 529, OpenAI
	// 503): retry later.
	ErrOverloaded = errors.New("sdkbridge: provider overloaded")
	// ErrContextTooLong: the request is longer than the model's context
	// window; retrying the same request cannot help.
	ErrContextTooLong = errors.New("sdkbridge: context too long")
	// ErrInvalidRequest: the provider refused the request as malformed
	// (400, 404, 413, 422); retrying the same request cannot help.
	ErrInvalidRequest = errors.New("sdkbridge: invalid request")
	// ErrAuth: the key is missing, wrong, or lacks permission (401, 403).
	ErrAuth = errors.New("sdkbridge: authentication")
	// ErrQuota: the account is out of credit (OpenAI insufficient_quota,
	// also a 429): retrying does not help until billing changes.
	ErrQuota = errors.New("sdkbridge: quota exhausted")
	// ErrServer: the provider failed (other 5xx, 408, 409): retry.
	ErrServer = errors.New("sdkbridge: provider error")
)

// Error is a provider's refusal, classified. It wraps its Kind (one of the
// Err* values above) and, when there is one, the SDK's own error.
type Error struct {
	Provider request.Provider
	// Kind is one of ErrRateLimited, ErrOverloaded, ErrContextTooLong,
	// ErrInvalidRequest, ErrAuth, ErrQuota or ErrServer.
	Kind error
	// Status is the HTTP status, 0 for an error sent inside a stream.
	Status int
	// Type is the provider's error type or code ("rate_limit_error",
	// "context_length_exceeded"), Message its message, cut to 64 KiB at a
	// rune boundary whatever the provider.
	Type, Message string
	// RetryAfter is the wait the provider asked for (retry-after-ms, or
	// retry-after in seconds or as an HTTP date), 0 when it sent none. It
	// is at most 10 minutes, whatever the header says: a longer wait (a
	// date in year 9999) reads as 10 minutes.
	RetryAfter time.Duration
	cause      error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", e.Kind, e.Provider)
	if e.Status != 0 {
		s += fmt.Sprintf(" %d", e.Status)
	}
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Message != "" {
		s += ": " + truncate(e.Message, 300)
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// Unwrap returns the kind and the SDK's error, for errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	if e.cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.cause}
}

// Retryable reports whether sending the same request again may succeed:
// a rate limit, an overload or a provider failure. Wait RetryAfter first
// when it is set.
func (e *Error) Retryable() bool {
	return e.Kind == ErrRateLimited || e.Kind == ErrOverloaded || e.Kind == ErrServer
}

// maxErrorBody bounds how much of an error body is read, and an error's
// Message, whichever provider it came from: the documented bodies are a
// few hundred bytes.
const maxErrorBody = 64 << 10

// boundMessage cuts msg to maxErrorBody bytes at a rune boundary.
func boundMessage(msg string) string {
	if len(msg) <= maxErrorBody {
		return msg
	}
	return strings.ToValidUTF8(msg[:maxErrorBody], "")
}

// classify classifies a provider's error response: its HTTP status (0 for
// an error event inside a stream), headers (nil for none) and body, as the
// provider documents them — Anthropic {"type":"error","error":{"type",
// "message"}}, OpenAI {"error":{"message","type","code"}} or a Responses
// stream's {"type":"error","code","message"}. It never fails: an
// unrecognized body is classified by its status alone.
func classify(p request.Provider, status int, header http.Header, body []byte) *Error {
	if len(body) > maxErrorBody {
		body = body[:maxErrorBody]
	}
	typ, code, msg := errorFields(body)
	e := &Error{Provider: p, Status: status, Type: firstOf(code, typ), Message: msg, RetryAfter: retryAfter(header)}
	e.Kind = kind(status, typ, code, msg)
	return e
}

// errorFields reads the type, code and message of an error body in any
// of the documented shapes.
func errorFields(body []byte) (typ, code, msg string) {
	type fields struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	var b struct {
		fields
		Error    json.RawMessage `json:"error"`
		Response *struct {
			Error *fields `json:"error"`
		} `json:"response"`
	}
	if json.Unmarshal(body, &b) != nil {
		return "", "", strings.TrimSpace(truncate(string(body), 300))
	}
	f := b.fields
	var inner fields
	switch {
	case len(b.Error) > 0 && b.Error[0] == '{' && json.Unmarshal(b.Error, &inner) == nil:
		f = inner
	case len(b.Error) > 0 && b.Error[0] == '"':
		_ = json.Unmarshal(b.Error, &f.Message)
	case b.Response != nil && b.Response.Error != nil:
		f = *b.Response.Error
	}
	var c string
	if json.Unmarshal(f.Code, &c) != nil {
		c = strings.Trim(string(f.Code), `"`)
	}
	if c == "null" {
		c = ""
	}
	return f.Type, c, f.Message
}

// kind decides the class from the status and the provider's words.
func kind(status int, typ, code, msg string) error {
	lower := strings.ToLower(msg)
	switch {
	case code == "context_length_exceeded" || strings.Contains(lower, "prompt is too long") ||
		strings.Contains(lower, "maximum context length") || strings.Contains(lower, "exceeds the context window"):
		return ErrContextTooLong
	case code == "insufficient_quota" || typ == "insufficient_quota" || typ == "billing_error":
		return ErrQuota
	case typ == "rate_limit_error" || code == "rate_limit_exceeded" || typ == "rate_limit_exceeded" || status == http.StatusTooManyRequests:
		return ErrRateLimited
	case typ == "overloaded_error" || code == "server_is_overloaded" || status == 529 || status == http.StatusServiceUnavailable:
		return ErrOverloaded
	case typ == "authentication_error" || typ == "permission_error" || code == "invalid_api_key" ||
		status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrAuth
	case typ == "api_error" || typ == "server_error" || status >= 500 || status == http.StatusRequestTimeout || status == http.StatusConflict:
		return ErrServer
	}
	return ErrInvalidRequest
}

// maxRetryAfter is the ceiling of Error.RetryAfter. The providers ask for
// seconds (a rate limit's window is a minute); a header asking for more
// than this — a date in year 9999 would be 292 years — is read as this.
const maxRetryAfter = 10 * time.Minute

// retryAfter reads the provider's retry advice: OpenAI's retry-after-ms,
// then retry-after in seconds or as an HTTP date, each at most
// maxRetryAfter. A wait that is not positive, or not a finite number, is no
// advice (0).
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if d, ok := waitOf(h.Get("Retry-After-Ms"), time.Millisecond); ok {
		return d
	}
	v := h.Get("Retry-After")
	if d, ok := waitOf(v, time.Second); ok {
		return d
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}

// waitOf reads a number of units, bounded by maxRetryAfter.
func waitOf(v string, unit time.Duration) (time.Duration, bool) {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(n) || n <= 0 {
		return 0, false
	}
	if n >= float64(maxRetryAfter/unit) { // Inf included; the product would overflow
		return maxRetryAfter, true
	}
	return time.Duration(n * float64(unit)), true
}

// Classify classifies an error an official SDK returned: an HTTP
// error (*openai.Error, *anthropic.Error, genai.APIError or
// *genai.APIError, wrapped or not), an error event in a stream, or a
// toolshelf [request.ErrReply] for a reply that reported an error. Any
// other error (a transport failure, a cancelled context) is returned as it
// is. The bridges' errors are classified already; Classify is for an SDK
// call the harness makes itself.
func Classify(p request.Provider, err error) error {
	if err == nil {
		return nil
	}
	var oe *openai.Error
	var ae *anthropic.Error
	var se *ssestream.StreamError
	var c *Error
	var ge genai.APIError
	var gp *genai.APIError
	switch {
	case errors.As(err, &c):
		return err
	case errors.As(err, &ge), errors.As(err, &gp) && gp != nil:
		return classifyGemini(err, &geminiCall{})
	case errors.As(err, &oe):
		c = fromResponse(p, oe.StatusCode, oe.Response)
		if c.Message == "" {
			c.Type, c.Message = firstOf(oe.Code, oe.Type), boundMessage(oe.Message)
			c.Kind = kind(oe.StatusCode, oe.Type, oe.Code, oe.Message)
		}
	case errors.As(err, &ae):
		c = fromResponse(p, ae.StatusCode, ae.Response)
		if c.Message == "" {
			c = classify(p, ae.StatusCode, header(ae.Response), []byte(ae.RawJSON()))
		}
	case errors.As(err, &se):
		c = classify(p, 0, nil, se.Event.Data)
	default:
		return err
	}
	c.cause = err
	return c
}

// fromResponse classifies an HTTP error response whose body the SDK left
// readable.
func fromResponse(p request.Provider, status int, res *http.Response) *Error {
	var body []byte
	if res != nil && res.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	}
	return classify(p, status, header(res), body)
}

func header(res *http.Response) http.Header {
	if res == nil {
		return nil
	}
	return res.Header
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

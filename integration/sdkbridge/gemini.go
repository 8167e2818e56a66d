package sdkbridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/toolshelf/toolshelf/request"
)

// google.golang.org/genai builds every request body itself, from typed
// values, through encoding/json (sorted map keys, HTML escaping, a
// trailing newline): no option sends given bytes. So the Gemini bridge
// sends through the SDK's client, path, headers, authentication and
// retries, and puts toolshelf's body on the wire at the transport: a
// client made with [GeminiHTTPClient] replaces the body the SDK built, for
// a call made by [Gemini] or [GeminiStream] only, and keeps a copy of the
// raw reply for request.DecodeReply. Every other call of that client
// passes through unchanged.

// maxGeminiReply bounds the raw reply the transport keeps (a reply is
// decoded from it; the SDK reads the same bytes).
const maxGeminiReply = 64 << 20

// errNotBridged is the error of a client made without GeminiHTTPClient.
var errNotBridged = errors.New(`the genai client's HTTPClient was not made by sdkbridge.GeminiHTTPClient: set genai.ClientConfig.HTTPClient = sdkbridge.GeminiHTTPClient(nil) (or your client)`)

// GeminiHTTPClient returns a client for genai.ClientConfig.HTTPClient,
// over base (nil: a new http.Client with http.DefaultTransport), that lets
// [Gemini] and [GeminiStream] send toolshelf's body byte for byte. Other
// calls made through it are not changed.
func GeminiHTTPClient(base *http.Client) *http.Client {
	c := http.Client{}
	if base != nil {
		c = *base
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = geminiTransport{next: next}
	return &c
}

// geminiCall is one bridged call, carried in the request's context.
type geminiCall struct {
	body   []byte
	mu     sync.Mutex
	sent   int         // requests sent (the SDK may retry)
	header http.Header // of the last response
	raw    bytes.Buffer
	over   bool // the reply passed maxGeminiReply
}

type geminiKey struct{}

type geminiTransport struct{ next http.RoundTripper }

func (t geminiTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	gc, _ := r.Context().Value(geminiKey{}).(*geminiCall)
	if gc == nil {
		return t.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(gc.body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(gc.body)), nil }
	r.ContentLength = int64(len(gc.body))
	res, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	gc.mu.Lock()
	gc.sent++
	gc.header = res.Header.Clone()
	gc.raw.Reset()
	gc.over = false
	gc.mu.Unlock()
	res.Body = &teeBody{rc: res.Body, gc: gc}
	return res, nil
}

// teeBody keeps what the SDK reads of a reply.
type teeBody struct {
	rc io.ReadCloser
	gc *geminiCall
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.gc.mu.Lock()
		if b.gc.raw.Len()+n > maxGeminiReply {
			b.gc.over = true
		} else {
			b.gc.raw.Write(p[:n])
		}
		b.gc.mu.Unlock()
	}
	return n, err
}

func (b *teeBody) Close() error { return b.rc.Close() }

// placeholder is the content the SDK is given to build a body from; the
// transport sends toolshelf's body instead.
var placeholder = []*genai.Content{genai.NewContentFromText(".", genai.RoleUser)}

func bridged(c *genai.Client) bool {
	hc := c.ClientConfig().HTTPClient
	if hc == nil {
		return false
	}
	_, ok := hc.Transport.(geminiTransport)
	return ok
}

// Gemini sends body, a toolshelf request body for request.Gemini, through
// c's generateContent call for model, byte for byte, and decodes the
// reply. c must have been made with [GeminiHTTPClient] as its HTTPClient
// (an error says so, before anything is sent). config, when not nil,
// carries per-request HTTP options (headers, timeout, retries); its
// generation fields are ignored: the body is toolshelf's.
func Gemini(ctx context.Context, c *genai.Client, model string, body []byte, config *genai.GenerateContentConfig) (request.Reply, error) {
	if !bridged(c) {
		return request.Reply{}, fmt.Errorf("sdkbridge: %w: %w", request.ErrConfig, errNotBridged)
	}
	gc := &geminiCall{body: body}
	_, err := c.Models.GenerateContent(context.WithValue(ctx, geminiKey{}, gc), model, placeholder, httpOnly(config))
	if err != nil {
		return request.Reply{}, classifyGemini(err, gc)
	}
	gc.mu.Lock()
	defer gc.mu.Unlock()
	if gc.over {
		return request.Reply{}, fmt.Errorf("sdkbridge: the reply is larger than %d bytes", maxGeminiReply)
	}
	return decode(request.Gemini, http.StatusOK, gc.raw.Bytes())
}

// GeminiStream sends body through c's streamGenerateContent call
// (?alt=sse) for model and feeds every event into a [request.Stream],
// as the SDK reads it; onEvent, when not nil, sees each event first. c
// must have been made with [GeminiHTTPClient].
func GeminiStream(ctx context.Context, c *genai.Client, model string, body []byte, config *genai.GenerateContentConfig, onEvent func(name string, data []byte)) (request.Reply, error) {
	if !bridged(c) {
		return request.Reply{}, fmt.Errorf("sdkbridge: %w: %w", request.ErrConfig, errNotBridged)
	}
	st, err := request.NewStream(request.Gemini)
	if err != nil {
		return request.Reply{}, err
	}
	gc := &geminiCall{body: body}
	var ev sseSplitter
	feed := func() error {
		gc.mu.Lock()
		chunk := gc.raw.Bytes()
		events := ev.push(chunk)
		gc.raw.Reset()
		over := gc.over
		gc.mu.Unlock()
		if over {
			return fmt.Errorf("sdkbridge: a stream event is larger than %d bytes", maxGeminiReply)
		}
		for _, data := range events {
			if onEvent != nil {
				onEvent("", data)
			}
			if err := st.Event("", data); err != nil {
				if _, code, msg := errorFields(data); msg != "" || code != "" {
					return classify(request.Gemini, 0, nil, data)
				}
				return err
			}
		}
		return nil
	}
	for _, err := range c.Models.GenerateContentStream(context.WithValue(ctx, geminiKey{}, gc), model, placeholder, httpOnly(config)) {
		if err != nil {
			return request.Reply{}, classifyGemini(err, gc)
		}
		if err := feed(); err != nil {
			return request.Reply{}, err
		}
	}
	if err := feed(); err != nil {
		return request.Reply{}, err
	}
	if rest := ev.flush(); len(rest) > 0 {
		for _, data := range rest {
			if onEvent != nil {
				onEvent("", data)
			}
			if err := st.Event("", data); err != nil {
				return request.Reply{}, err
			}
		}
	}
	return st.Reply()
}

// httpOnly keeps the HTTP options of a config: the body is toolshelf's.
func httpOnly(config *genai.GenerateContentConfig) *genai.GenerateContentConfig {
	if config == nil || config.HTTPOptions == nil {
		return nil
	}
	return &genai.GenerateContentConfig{HTTPOptions: config.HTTPOptions}
}

// sseSplitter cuts a server-sent event stream into the data of its events
// (lines "data: ..." up to a blank line), across chunk boundaries.
type sseSplitter struct {
	buf  []byte
	data [][]byte
}

func (s *sseSplitter) push(chunk []byte) [][]byte {
	s.buf = append(s.buf, chunk...)
	var out [][]byte
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			return out
		}
		line := bytes.TrimSuffix(s.buf[:i], []byte{'\r'})
		s.buf = s.buf[i+1:]
		if len(line) == 0 {
			if len(s.data) > 0 {
				out = append(out, bytes.Join(s.data, []byte{'\n'}))
				s.data = nil
			}
			continue
		}
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			s.data = append(s.data, bytes.Clone(bytes.TrimPrefix(d, []byte(" "))))
		}
	}
}

// flush returns the event left when the stream ended without a blank line.
func (s *sseSplitter) flush() [][]byte {
	out := s.push([]byte("\n\n"))
	return out
}

// classifyGemini classifies an error of the genai SDK: its APIError, with
// the retry advice of the reply's headers and of the body's RetryInfo.
func classifyGemini(err error, gc *geminiCall) error {
	var ae genai.APIError
	var ap *genai.APIError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &ap) && ap != nil:
		ae = *ap
	default:
		return err
	}
	gc.mu.Lock()
	h := gc.header
	gc.mu.Unlock()
	typ := ae.Status
	e := &Error{Provider: request.Gemini, Status: ae.Code, Type: typ, Message: boundMessage(ae.Message), RetryAfter: retryAfter(h), cause: err}
	if d := retryInfo(ae.Details); d > 0 {
		e.RetryAfter = d
	}
	e.Kind = geminiKind(ae.Code, typ, e.Message)
	return e
}

// geminiKind decides the class of a Gemini error from its HTTP code,
// google.rpc status and message (ai.google.dev/gemini-api/docs/troubleshooting).
func geminiKind(code int, status, msg string) error {
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "input token count") && strings.Contains(lower, "exceeds the maximum"):
		return ErrContextTooLong
	case status == "RESOURCE_EXHAUSTED" || code == http.StatusTooManyRequests:
		return ErrRateLimited
	case status == "UNAVAILABLE" || code == http.StatusServiceUnavailable:
		return ErrOverloaded
	case status == "UNAUTHENTICATED" || status == "PERMISSION_DENIED" || code == http.StatusUnauthorized || code == http.StatusForbidden:
		return ErrAuth
	case status == "INTERNAL" || status == "DEADLINE_EXCEEDED" || code >= 500 || code == http.StatusRequestTimeout:
		return ErrServer
	}
	return ErrInvalidRequest
}

// retryInfo reads google.rpc.RetryInfo's retryDelay ("30s", "1.5s") from
// an error's details, bounded like every retry advice.
func retryInfo(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if v, ok := strings.CutSuffix(s, "s"); ok {
			if w, ok := waitOf(v, time.Second); ok {
				return w
			}
		}
	}
	return 0
}

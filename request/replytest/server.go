package replytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/request"
)

// maxRequestBytes bounds a request body the server reads: 64 MiB, far
// over any request a session builds in the repository's tests.
const maxRequestBytes = 64 << 20

// Server is a scripted provider: an [httptest.Server] that answers each
// request, on any path, with the next scripted assistant message encoded
// by [Encode] in its provider's shape — whole, or as server-sent events
// when the request body says "stream": true (for Gemini, when the path's
// method is streamGenerateContent) — with usage figures from
// [Simulate] (tokens counted at 4 characters each). It records every body
// it receives. A request past the end of the script gets a 500 whose
// message says so. Close it when done, as an httptest.Server.
type Server struct {
	*httptest.Server
	p request.Provider

	mu      sync.Mutex
	replies []request.Message
	bodies  [][]byte
}

// NewServer starts a [Server] for provider p that answers with replies, in
// order.
func NewServer(p request.Provider, replies ...request.Message) *Server {
	s := &Server{p: p, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Bodies returns the request bodies received so far, in order.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.bodies))
	for i, b := range s.bodies {
		out[i] = bytes.Clone(b)
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.bodies)
	var prev []byte
	if n > 0 {
		prev = s.bodies[n-1]
	}
	s.bodies = append(s.bodies, body)
	var m request.Message
	ok := n < len(s.replies)
	if ok {
		m = s.replies[n]
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, fmt.Sprintf(`{"error":{"message":"replytest: request %d, but the script has %d replies"}}`, n+1, len(s.replies)), http.StatusInternalServerError)
		return
	}
	u := Simulate(s.p, countQuarter, prev, body, outputOf(m))
	whole, stream, err := Encode(s.p, n+1, m, u)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var req struct {
		Stream bool `json:"stream"`
	}
	// Gemini asks for a stream by its method (…:streamGenerateContent?alt=sse),
	// the others by "stream": true in the body.
	if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || json.Unmarshal(body, &req) == nil && req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(whole)
}

// countQuarter counts a text's tokens at 4 characters (runes) each,
// rounded up.
func countQuarter(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// outputOf is the content a reply generates: its text and its calls'
// names and arguments.
func outputOf(m request.Message) string {
	var b strings.Builder
	b.WriteString(m.Text)
	for _, c := range m.ToolCalls {
		b.WriteString(c.Name)
		b.Write(argsOf(c))
	}
	return b.String()
}

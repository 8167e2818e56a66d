package replytest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// TestServer: for every provider the server answers whole or streamed as
// the request asks, in order, records the bodies, and says when the
// script has run out.
func TestServer(t *testing.T) {
	call := request.ToolCall{ID: "call_1", Name: "Read", Arguments: json.RawMessage(`{"path":"a.go"}`)}
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIChat, request.OpenAIResponses} {
		t.Run(string(p), func(t *testing.T) {
			srv := replytest.NewServer(p,
				request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{call}},
				request.Message{Role: request.RoleAssistant, Text: "done"})
			defer srv.Close()

			resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"model":"m"}`))
			require.NoError(t, err)
			raw, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			reply, err := request.DecodeReply(p, raw)
			require.NoError(t, err, "the first scripted reply, whole")
			require.Len(t, reply.Message.ToolCalls, 1)
			assert.Equal(t, "Read", reply.Message.ToolCalls[0].Name)

			resp, err = srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"model":"m","stream":true}`))
			require.NoError(t, err)
			assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			reply, err = request.DecodeStream(p, resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			assert.Equal(t, "done", reply.Message.Text, "the second scripted reply, streamed")
			assert.Positive(t, reply.Usage.InputTokens)

			resp, err = srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{}`))
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, "past the end of the script")
			assert.Equal(t, []string{`{"model":"m"}`, `{"model":"m","stream":true}`, `{}`}, strs(srv.Bodies()))
		})
	}
}

func strs(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

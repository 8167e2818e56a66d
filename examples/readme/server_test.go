package readme

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// TestReadmeLoopOverHTTP drives the README's loop (newChat) against
// replytest's scripted provider server over real HTTP: the model finds a
// deferred tool, calls it through defer_execute, then answers. The server
// records three bodies, each with the same prefix, and the handler ran.
func TestReadmeLoopOverHTTP(t *testing.T) {
	ctx := context.Background()
	reg := registry.New(nil)
	cat, err := registry.LoadCatalog(filepath.Join("..", "..", "testdata", "catalogs", "github.tools.json"))
	require.NoError(t, err)
	ran := 0
	for i := range cat.Tools {
		if cat.Tools[i].Name == "create_pull_request" {
			cat.Tools[i].Handler = func(context.Context, json.RawMessage) (registry.Result, error) {
				ran++
				return registry.Result{Text: `{"number":42}`}, nil
			}
		}
	}
	require.NoError(t, reg.Import(cat))
	disp, err := execute.New(nil)
	require.NoError(t, err)

	srv := replytest.NewServer(request.Anthropic,
		request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "toolu_1", Name: "tool_search",
			Arguments: json.RawMessage(`{"tool_names":["mcp__github__create_pull_request"]}`)}}},
		request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "toolu_2", Name: "defer_execute",
			Arguments: json.RawMessage(`{"tool_name":"mcp__github__create_pull_request","params":{"owner":"acme","repo":"app","title":"Fix","head":"fix","base":"main"}}`)}}},
		request.Message{Role: request.RoleAssistant, Text: "Opened pull request #42."},
	)
	defer srv.Close()
	callModel := func(ctx context.Context, body []byte) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	chat, err := newChat(reg, disp, callModel)
	require.NoError(t, err)
	answer, err := chat(ctx, "Open a PR from fix into main in acme/app.")
	require.NoError(t, err)
	assert.Equal(t, "Opened pull request #42.", answer)
	assert.Equal(t, 1, ran, "the deferred tool ran once, through defer_execute")
	bodies := srv.Bodies()
	require.Len(t, bodies, 3)
	prefix := bodies[0][:wire.PrefixLen(bodies[0])]
	for i, b := range bodies {
		assert.True(t, bytes.HasPrefix(b, prefix), "body %d keeps the prefix", i+1)
		assert.Empty(t, wire.Check(string(request.Anthropic), b), "body %d passes the rule book", i+1)
	}
	assert.Contains(t, string(bodies[2]), `{\"number\":42}`, "the tool's result went back to the model")
}

// TestReadmeLoopKeepsEachAnswer plays the README's loop for three user
// messages: each answer stays in the conversation, so the request for the
// next message carries it right before that message (a loop that returned
// without keeping it sent tool results, then the new question).
func TestReadmeLoopKeepsEachAnswer(t *testing.T) {
	ctx := context.Background()
	reg := registry.New(nil)
	cat, err := registry.LoadCatalog(filepath.Join("..", "..", "testdata", "catalogs", "github.tools.json"))
	require.NoError(t, err)
	require.NoError(t, reg.Import(cat))
	disp, err := execute.New(nil)
	require.NoError(t, err)
	srv := replytest.NewServer(request.Anthropic,
		request.Message{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "toolu_1", Name: "tool_search",
			Arguments: json.RawMessage(`{"tool_names":["mcp__github__get_me"]}`)}}},
		request.Message{Role: request.RoleAssistant, Text: "First answer."},
		request.Message{Role: request.RoleAssistant, Text: "Second answer."},
		request.Message{Role: request.RoleAssistant, Text: "Third answer."},
	)
	defer srv.Close()
	callModel := func(ctx context.Context, body []byte) ([]byte, error) {
		resp, err := srv.Client().Post(srv.URL+"/v1/messages", "application/json", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	chat, err := newChat(reg, disp, callModel)
	require.NoError(t, err)
	for i, want := range []string{"First answer.", "Second answer.", "Third answer."} {
		answer, err := chat(ctx, fmt.Sprintf("Question %d.", i+1))
		require.NoError(t, err, "user message %d", i+1)
		assert.Equal(t, want, answer)
	}
	bodies := srv.Bodies()
	require.Len(t, bodies, 4)
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var last struct {
		Messages []struct {
			Role    string  `json:"role"`
			Content []block `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(bodies[3], &last))
	var seq []string
	for _, m := range last.Messages {
		var kinds []string
		for _, c := range m.Content {
			kinds = append(kinds, c.Type+":"+c.Text)
		}
		seq = append(seq, m.Role+" "+strings.Join(kinds, ","))
	}
	assert.Equal(t, []string{
		"user text:<user_query>Question 1.</user_query>",
		"assistant tool_use:",
		"user tool_result:",
		"assistant text:First answer.",
		"user text:<user_query>Question 2.</user_query>",
		"assistant text:Second answer.",
		"user text:<user_query>Question 3.</user_query>",
	}, seq, "each answer precedes the next user message")
	for i, b := range bodies {
		assert.Empty(t, wire.Check(string(request.Anthropic), b), "body %d passes the rule book", i+1)
	}
}

package readme

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// TestReadmeLoopOverHTTP drives the README's loop (chat) against
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
	answer, err := chat(ctx, reg, disp, callModel, "Open a PR from fix into main in acme/app.")
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

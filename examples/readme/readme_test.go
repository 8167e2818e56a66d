package readme

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// chat runs one user request to its answer: the README's code sample.
func chat(ctx context.Context, reg *registry.Registry, disp *execute.Dispatcher,
	callModel func(context.Context, []byte) ([]byte, error), user string) (string, error) {
	// README:begin
	s, err := request.NewSession(request.Config{
		Snapshot:   reg.Snapshot(), // your built-in tools and MCP servers' tools
		Policy:     &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("harness", "Defer(mcp__*)")}},
		Provider:   request.Anthropic, // or request.OpenAIChat, request.OpenAIResponses
		Model:      "claude-sonnet-4-5",
		Dispatcher: disp, // execute.New: permission rules and hooks for every call
		// Anthropic requires max_tokens; the OpenAI APIs have a default.
		Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage("4096")},
	})
	if err != nil {
		return "", err
	}
	turn := request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: user}}}
	var buf []byte // reused each turn: a steady turn then allocates nothing
	for {
		body, err := s.AppendRequest(buf[:0], turn) // the frozen prefix, then the history: append-only
		if err != nil {
			return "", err
		}
		buf = body                       // callModel must be done with body when it returns
		raw, err := callModel(ctx, body) // your HTTP client: the provider's response body
		if err != nil {
			return "", err
		}
		reply, err := request.DecodeReply(request.Anthropic, raw) // request.DecodeStream for SSE
		if err != nil || len(reply.Message.ToolCalls) == 0 {
			return reply.Message.Text, err
		}
		turn = request.Turn{Messages: []request.Message{reply.Message}}
		for _, c := range reply.Message.ToolCalls { // tool_search, defer_execute or a resident tool
			res := s.Call(execute.WithCallID(ctx, c.ID), c.Name, c.Arguments) // hooks and events see c.ID
			turn.Messages = append(turn.Messages, request.Message{Role: request.RoleTool, CallID: c.ID, Text: res.Text, IsError: res.IsError})
		}
	}
	// README:end
}

// Example runs the README's sample over GitHub's MCP server with a
// scripted model: it finds create_pull_request with tool_search and calls
// it through defer_execute, past an Ask rule the user approves.
func Example() {
	ctx := context.Background()
	reg := registry.New(nil)
	cat, err := registry.LoadCatalog(filepath.Join("..", "..", "testdata", "catalogs", "github.tools.json"))
	if err != nil {
		panic(err)
	}
	for i := range cat.Tools {
		if cat.Tools[i].Name == "create_pull_request" {
			cat.Tools[i].Handler = func(context.Context, json.RawMessage) (registry.Result, error) {
				return registry.Result{Text: `{"number":42}`}, nil
			}
		}
	}
	if err := reg.Import(cat); err != nil { // tools become mcp__github__<tool>
		panic(err)
	}
	disp, err := execute.New(&execute.Options{
		Hooks: []execute.Hook{{Name: "audit", Before: func(_ context.Context, c *execute.Call) execute.Verdict {
			fmt.Println("hook:", c.Name, c.ID)
			return execute.Verdict{}
		}}},
		Permissions: execute.MustPermissions("Ask(mcp__github__create_*)"),
		Ask: func(_ context.Context, req execute.AskRequest) (bool, error) {
			fmt.Println("ask:", req.Tool)
			return true, nil
		},
	})
	if err != nil {
		panic(err)
	}

	// The model's replies, as Anthropic's Messages API sends them.
	replies := []string{
		`{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"tool_search",
		  "input":{"tool_names":["mcp__github__create_pull_request"]}}],"stop_reason":"tool_use","usage":{"input_tokens":900,"output_tokens":30}}`,
		`{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"defer_execute",
		  "input":{"tool_name":"mcp__github__create_pull_request","params":{"owner":"acme","repo":"app","title":"Fix","head":"fix","base":"main"}}}],
		  "stop_reason":"tool_use","usage":{"input_tokens":40,"cache_read_input_tokens":1100,"output_tokens":60}}`,
		`{"type":"message","role":"assistant","content":[{"type":"text","text":"Opened pull request #42."}],"stop_reason":"end_turn",
		  "usage":{"input_tokens":30,"cache_read_input_tokens":1200,"output_tokens":9}}`,
	}
	var first []byte
	callModel := func(_ context.Context, body []byte) ([]byte, error) {
		if first == nil {
			first = bytes.Clone(body[:wire.PrefixLen(body)]) // body is reused
		}
		fmt.Printf("request: the same %d-tool prefix: %t\n", strings.Count(string(first), `"input_schema"`), bytes.HasPrefix(body, first))
		m := replies[0]
		replies = replies[1:]
		return []byte(m), nil
	}
	answer, err := chat(ctx, reg, disp, callModel, "Open a PR from fix into main in acme/app.")
	fmt.Println(answer, err)
	// Output:
	// request: the same 2-tool prefix: true
	// hook: tool_search toolu_1
	// request: the same 2-tool prefix: true
	// ask: mcp__github__create_pull_request
	// hook: mcp__github__create_pull_request toolu_2
	// request: the same 2-tool prefix: true
	// Opened pull request #42. <nil>
}

// codeBlock returns the offsets of the body of the first fenced block
// (fence is "```go" or "```text") of a Markdown file's section heading.
func codeBlock(t *testing.T, readme, heading, fence string) (start, end int) {
	t.Helper()
	i := strings.Index(readme, "\n"+heading+"\n")
	require.NotEqual(t, -1, i, "no %s section", heading)
	j := strings.Index(readme[i:], "\n"+fence+"\n")
	require.NotEqual(t, -1, j, "%s has no %s block", heading, fence)
	start = i + j + len(fence) + 2
	k := strings.Index(readme[start:], "```\n")
	require.NotEqual(t, -1, k)
	return start, start + k
}

// TestQuickstartOutput keeps docs/quickstart.md's "Output" identical to
// the quickstart's golden output (itself checked against a real run by
// examples/quickstart's tests). With TOOLSHELF_UPDATE=1 it rewrites the docs block.
func TestQuickstartOutput(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("..", "quickstart", "testdata", "output.golden"))
	require.NoError(t, err)
	path := filepath.Join("..", "..", "docs", "quickstart.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	start, end := codeBlock(t, string(doc), "## Output", "```text")
	if goldenfile.Updating() {
		out := string(doc[:start]) + string(golden) + string(doc[end:])
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		return
	}
	assert.Equal(t, string(golden), string(doc[start:end]),
		"docs/quickstart.md's Output differs from examples/quickstart/testdata/output.golden; run TOOLSHELF_UPDATE=1 go test ./examples/readme")
}

// TestReadmeMatches keeps README.md's sample identical to chat's body.
func TestReadmeMatches(t *testing.T) {
	src, err := os.ReadFile("readme_test.go")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(src), "\t// README:begin\n")
	require.True(t, ok)
	body, _, ok := strings.Cut(after, "\t// README:end\n")
	require.True(t, ok)
	var want strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t"))
	}

	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	start, end := codeBlock(t, string(readme), "## The loop", "```go")
	assert.Equal(t, want.String(), string(readme[start:end]), "README.md's ## The loop differs from chat in examples/readme/readme_test.go")
}

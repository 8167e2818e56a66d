package replytest_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/replytest"
)

// A scripted assistant turn, encoded as Anthropic would send it, goes
// through the harness's real decoding path.
func ExampleEncode() {
	m := request.Message{Role: request.RoleAssistant, Text: "Reading it.", ToolCalls: []request.ToolCall{
		{ID: "call_1", Name: "Read", Arguments: json.RawMessage(`{"path":"main.go"}`)},
	}}
	whole, _, err := replytest.Encode(request.Anthropic, 1, m, request.Usage{InputTokens: 1200, OutputTokens: 30})
	if err != nil {
		panic(err)
	}
	r, err := request.DecodeReply(request.Anthropic, whole)
	if err != nil {
		panic(err)
	}
	c := r.Message.ToolCalls[0]
	fmt.Println(r.Message.Text, c.Name, string(c.Arguments), r.Usage.InputTokens, r.Usage.OutputTokens)
	// Output: Reading it. Read {"path":"main.go"} 1200 30
}

package request_test

import (
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/request"
)

// ExampleDecodeReply decodes an Anthropic response body: the assistant's
// message for the next turn, why it stopped, and the usage with the cache
// figures in one form for every provider.
func ExampleDecodeReply() {
	body := `{"type":"message","role":"assistant","content":[
	  {"type":"text","text":"Checking."},
	  {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city": "Paris"}}],
	  "stop_reason":"tool_use",
	  "usage":{"input_tokens":12,"cache_read_input_tokens":2048,"cache_creation_input_tokens":0,"output_tokens":30}}`
	r, err := request.DecodeReply(request.Anthropic, []byte(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Message.ToolCalls[0]
	fmt.Println(r.Message.Text, c.ID, c.Name, string(c.Arguments), r.StopReason)
	u := r.Usage
	fmt.Printf("in=%d out=%d read=%d write=%d uncached=%d\n", u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	// Output:
	// Checking. toolu_1 get_weather {"city":"Paris"} tool_use
	// in=2060 out=30 read=2048 write=0 uncached=12
}

// ExampleDecodeStream accumulates a Chat Completions stream: the
// arguments of a tool call arrive in pieces, the usage in the last chunk.
func ExampleDecodeStream() {
	stream := `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"choices":[],"usage":{"prompt_tokens":2060,"completion_tokens":30,"prompt_tokens_details":{"cached_tokens":1920}}}

data: [DONE]

`
	r, err := request.DecodeStream(request.OpenAIChat, strings.NewReader(stream))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Message.ToolCalls[0]
	fmt.Println(c.ID, c.Name, string(c.Arguments), r.StopReason, r.Usage.CacheReadTokens)

	_, err = request.DecodeStream(request.OpenAIChat, strings.NewReader(stream[:strings.Index(stream, "data: [DONE]")]))
	fmt.Println(err)
	// Output:
	// call_1 get_weather {"city":"Paris"} tool_calls 1920
	// request: malformed provider reply: the openai-chat stream ended after 5 events, before its terminal event; the reply is incomplete
}

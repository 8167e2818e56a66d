package request_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

func ExampleSession_BuildRequest() {
	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{Name: "Read", Description: "Read a file.",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)})
	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(),
		Provider: request.OpenAIChat,
		Model:    "gpt-test",
		System:   "Be brief.",
		Extra:    map[string]json.RawMessage{"max_tokens": json.RawMessage(`256`)},
	})
	if err != nil {
		panic(err)
	}
	body, err := s.BuildRequest(request.Turn{
		Messages: []request.Message{{Role: request.RoleUser, Text: "What is in <main.go>?"}},
		Inject:   []string{"<reminder>cwd: /src</reminder>"},
	})
	fmt.Println(string(body), err)
	// Output:
	// {"model":"gpt-test","max_tokens":256,"tools":[{"type":"function","function":{"name":"Read","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}],"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"<reminder>cwd: /src</reminder>"},{"type":"text","text":"<user_query>What is in <main.go>?</user_query>"}]}]} <nil>
}

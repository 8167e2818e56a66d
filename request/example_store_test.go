package request_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/storetest"
)

// Two replicas serve one conversation from one store: each turn opens the
// conversation, builds the request and commits the turn. A replica that
// built on an old version gets ErrConflict and nothing is stored.
func ExampleOpenConversation() {
	ctx := context.Background()
	store := &storetest.MemoryStore{} // a harness uses its own: Redis, SQL, …
	replica := func() request.Config {
		reg := registry.New(nil)
		_ = reg.Register(registry.Tool{Name: "Read", Description: "Read a file."})
		return request.Config{
			Snapshot: reg.Snapshot(), Provider: request.OpenAIChat, Model: "gpt-test",
			Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`256`)},
			Cache: &request.Cache{}, // each replica has its own
		}
	}
	a, b := replica(), replica()

	serve := func(cfg request.Config, key string, msgs ...request.Message) ([]byte, error) {
		conv, err := request.OpenConversation(ctx, store, "conv-1", cfg, nil)
		if err != nil {
			return nil, err
		}
		body, err := conv.Session().BuildRequest(request.Turn{Messages: msgs})
		if err != nil {
			return nil, err
		}
		return body, conv.Commit(ctx, key)
	}
	_, err := serve(a, "turn-1", request.Message{Role: request.RoleUser, Text: "hi"})
	fmt.Println("turn 1 on replica a:", err)
	body, err := serve(b, "turn-2",
		request.Message{Role: request.RoleAssistant, Text: "Hello."},
		request.Message{Role: request.RoleUser, Text: "Read main.go"})
	fmt.Println("turn 2 on replica b:", err)
	fmt.Println(string(body[wire.PrefixLen(body):])) // the history, after the frozen prefix

	// A commit built on version 1 after turn 2 was stored.
	stale, _ := request.OpenConversation(ctx, store, "conv-1", a, nil)
	_, _ = serve(b, "turn-3", request.Message{Role: request.RoleAssistant, Text: "Done."}, request.Message{Role: request.RoleUser, Text: "thanks"})
	err = stale.Commit(ctx, "turn-3-again")
	fmt.Println(errors.Is(err, request.ErrConflict), err)
	// Output:
	// turn 1 on replica a: <nil>
	// turn 2 on replica b: <nil>
	// {"role":"user","content":"<user_query>hi</user_query>"},{"role":"assistant","content":"Hello."},{"role":"user","content":"<user_query>Read main.go</user_query>"}]}
	// true conversation "conv-1": append at version 2, stored version is 3: request: conversation changed since it was loaded
}

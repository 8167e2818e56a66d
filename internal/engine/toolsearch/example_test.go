package toolsearch_test

import (
	"context"
	"fmt"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

func Example() {
	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{Name: "VideoGen", Description: "Generate a short video from a prompt."})
	_ = reg.AddGroup(registry.Group{Name: "github", Description: "GitHub's API:\nissues, pull requests."})
	_ = reg.Register(
		registry.Tool{Name: "create_pull_request", Group: "github", Description: "Open a new pull request.",
			RawSchema: []byte(`{"type":"object","properties":{"title":{"type":"string"},"draft":{"type":"boolean","default":false}},"required":["title"]}`)},
		registry.Tool{Name: "list_issues", Group: "github", Description: "List issues in a repository."},
	)
	plan, _ := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{})
	s, _ := toolsearch.New(plan, nil)
	fmt.Println(s.IndexText())

	loaded := toolsearch.NewLoadedSet()
	res, names := s.Load(context.Background(), []byte(`{"queries": ["open a PR"]}`), toolsearch.Scope{Loaded: loaded})
	for _, n := range names {
		loaded.Add(n) // the caller keeps its loaded set
	}
	fmt.Println(res.Text)
	fmt.Println(loaded.Names())
	// Output:
	// <available_deferred_tools>
	// VideoGen
	// mcp__github: GitHub's API: issues, pull requests.
	//   create_pull_request
	//   list_issues
	// </available_deferred_tools>
	// 1 match.
	// Loaded 1 tool; call it with defer_execute {"tool_name": "<name>", "params": {...}}.
	//
	// ## mcp__github__create_pull_request
	// Open a new pull request.
	// Parameters:
	// - title (string, required)
	// - draft (boolean, default false)
	// [mcp__github__create_pull_request]
}

func ExampleSearcher_Call_exact() {
	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{Name: "Screenshot", Description: "Capture the screen."})
	plan, _ := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{})
	s, _ := toolsearch.New(plan, nil)
	loaded := toolsearch.NewLoadedSet()
	sc := toolsearch.Scope{Loaded: loaded}
	_, names := s.Load(context.Background(), []byte(`{"tool_names": ["Screenshot"]}`), sc)
	for _, n := range names {
		loaded.Add(n) // the caller keeps its loaded set
	}
	fmt.Println(s.Call(context.Background(), []byte(`{"queries": ["select:Screenshot"]}`), sc).Text)
	fmt.Println(s.Call(context.Background(), []byte(`{"queries": []}`), sc).Text)
	// Output:
	// Screenshot is already loaded (its schema is earlier in this conversation): call it with defer_execute.
	// Invalid tool_search call: "queries" is an empty array.
	// Call tool_search with exactly one of: {"queries": ["keywords for the capability you need"]} to search, or {"tool_names": ["exact_tool_name"]} to load tools listed in <available_deferred_tools>.
}

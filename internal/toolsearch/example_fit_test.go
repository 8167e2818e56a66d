package toolsearch_test

import (
	"context"
	"fmt"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// A request no tool serves comes back as one line: nothing fits, the
// closest tools by name, nothing loaded.
func ExampleSearcher_Call_nothingFits() {
	reg := registry.New(nil)
	_ = reg.AddGroup(registry.Group{Name: "github", Description: "GitHub's API."})
	_ = reg.Register(
		registry.Tool{Name: "create_pull_request", Group: "github", Description: "Open a new pull request."},
		registry.Tool{Name: "list_issues", Group: "github", Description: "List the issues of a repository; good first issues included."},
		registry.Tool{Name: "get_file", Group: "github", Description: "Read a file of a repository."},
	)
	plan, _ := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{})
	s, _ := toolsearch.New(plan, nil)
	loaded := toolsearch.NewLoadedSet()
	fmt.Println(s.Call(context.Background(), []byte(`{"queries": ["any good name for my cat?"]}`), toolsearch.Scope{Loaded: loaded}).Text)
	fmt.Println(loaded.Names())
	// Output:
	// No deferred tool fits "any good name for my cat?" (closest by name, not loaded: mcp__github__list_issues); answer without a tool, or load one with {"tool_names": ["<name>"]} if it is what you need.
	// []
}

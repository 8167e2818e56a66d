package toolsearch_test

import (
	"context"
	"fmt"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/registry"
)

// A request whose best match is not credible loads nothing. Where a stray
// word still gives the best tool some evidence ("good", in one tool of
// three), the answer is "not sure" with the candidates; below the floor,
// it is one line saying nothing fits.
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
	res, names := s.Load(context.Background(), []byte(`{"queries": ["any good name for my cat?"]}`), toolsearch.Scope{Loaded: loaded})
	for _, n := range names {
		loaded.Add(n) // the caller keeps its loaded set
	}
	fmt.Println(res.Text)
	fmt.Println(loaded.Names())
	// Output:
	// Not sure which tool fits: none matches clearly. Load one of these by name, or search again with other words.
	// Candidates (not loaded), best first:
	// - mcp__github__list_issues — List the issues of a repository
	// Load one by name: tool_search {"tool_names": ["<name>"]}.
	// []
}

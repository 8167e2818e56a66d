package budget_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// A live session accounted directly: its sections, measured by class.
func ExampleSections() {
	reg := registry.New(nil)
	_ = reg.Register(registry.Tool{Name: "Read", Description: "Read a file.",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)})
	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(), Provider: request.OpenAIChat, Model: "gpt-4o", System: "Be brief.",
	})
	if err != nil {
		panic(err)
	}
	if _, err := s.BuildRequest(request.Turn{
		Messages: []request.Message{{Role: request.RoleUser, Text: "What is in main.go?"}},
		Inject:   []string{"<reminder>cwd: /src</reminder>"},
	}); err != nil {
		panic(err)
	}
	m := budget.CounterForModel("gpt-4o").Measure(budget.Sections(s))
	for _, c := range []budget.Class{budget.ClassSystem, budget.ClassTool, budget.ClassMessage, budget.ClassInjection} {
		sz := m.ByClass(c)
		fmt.Printf("%-9s %3d chars %3s tokens\n", c, sz.Runes, sz.Tokens)
	}
	// Output:
	// system      9 chars   3 tokens
	// tool       74 chars  20 tokens
	// message    19 chars   6 tokens
	// injection  30 chars  12 tokens
}

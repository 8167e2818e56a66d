package budget_test

import (
	"fmt"

	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// The savings account of the published 60-tool harness, computed from the
// fixture catalog: its 23 "defer_loading": true tools are deferred.
func ExampleNewAccount() {
	reg := registry.New(nil)
	cat, err := registry.LoadCatalog("../testdata/fixtures/harness-catalog.json")
	if err != nil {
		panic(err)
	}
	if err := reg.Import(cat); err != nil {
		panic(err)
	}
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	if err != nil {
		panic(err)
	}
	acc, err := budget.NewAccount(plan, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("deferrable: %d tools, %d chars\n", acc.DeferredCount, acc.DeferredChars)
	fmt.Printf("index: %d chars; net saving per turn: %d chars\n", acc.IndexChars, acc.NetSaving)
	fmt.Printf("longest: %s, %.0f%% of the deferrable total\n", acc.LongestName, acc.LongestShare*100)
	// Output:
	// deferrable: 23 tools, 41418 chars
	// index: 271 chars; net saving per turn: 41147 chars
	// longest: VideoGen, 45% of the deferrable total
}

// Measuring sections for a Claude model, whose tokenizer is not public:
// every figure is an estimate (o200k scaled by the calibrated ratio), and
// says so.
func ExampleCounter_Measure() {
	c := budget.CounterForModel("claude-sonnet-4-5")
	m := c.Measure([]budget.Section{
		{Name: "system", Class: budget.ClassSystem, Kind: budget.KindProse, Text: "You are a careful coding assistant.", Frozen: true},
		{Name: "Read", Class: budget.ClassTool, Kind: budget.KindJSON, Text: `{"type":"object","properties":{"path":{"type":"string"}}}`, Frozen: true},
	})
	for _, r := range m.Rows {
		fmt.Printf("%s: %d chars, %s tokens\n", r.Name, r.Runes, r.Tokens)
	}
	fmt.Println(budget.BarFor(m, budget.Tokens{}, 200).Render(&budget.BarOptions{Width: 20}))
	// Output:
	// system: 35 chars, ~7 tokens
	// Read: 57 chars, ~14 tokens
	// [▒▒░░░░░░░░░░░░░░░░░░] ~21 / 200 tokens · 10% · free ~179
}

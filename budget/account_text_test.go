package budget_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// The account of the published 60-tool harness, printed as toolshelf
// budget prints it (without a counter, tokens are estimates, marked ~).
func ExampleAccount_WriteText() {
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
	if err := acc.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// tokens counted with       estimate (estimates, marked ~)
	//   method: character estimate: prose at 4 chars/token, JSON at 1.3
	// all tools resident         58 tools    109,405 chars  ~33,675 tokens
	// deferrable                 23 tools     41,418 chars  ~12,876 tokens  (37.9% of all chars)
	// resident after deferral    35 tools     67,987 chars  ~20,800 tokens
	// index replacing them                       271 chars  ~68 tokens  (the full names one a line: 248 chars)
	// net saving per turn                     41,147 chars  ~12,808 tokens  (deferred − index; 2.06× the index's 20,000-char budget)
	//   net of the entry tools                41,147 chars  ~12,808 tokens
	// schema-to-name ratios     all 185:1 · deferred 167:1 · longest 2,334:1  (definition chars per name char)
	// longest deferred tool     VideoGen, 18,671 chars = 45% of the deferrable chars
}

// TestAccountJSON: the JSON form is the Account itself, each figure named
// with its unit, and round-trips.
func TestAccountJSON(t *testing.T) {
	reg := registry.New(nil)
	cat, err := registry.LoadCatalog("../testdata/fixtures/harness-catalog.json")
	require.NoError(t, err)
	require.NoError(t, reg.Import(cat))
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	require.NoError(t, err)
	acc, err := budget.NewAccount(plan, nil)
	require.NoError(t, err)
	b, err := json.Marshal(acc)
	require.NoError(t, err)
	var back budget.Account
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, *acc, back)
	assert.Contains(t, string(b), `"net_saving_chars":41147`)
	var text strings.Builder
	require.NoError(t, acc.WriteText(&text))
	assert.Contains(t, text.String(), "41,147 chars")
}

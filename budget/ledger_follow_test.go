package budget_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// TestLedgerHeaderAgreesWithRows (issue 48): after the account changed
// (SetAccount with a late server's tools), the header states the delta
// each row used, not only the last one.
func TestLedgerHeaderAgreesWithRows(t *testing.T) {
	before := &budget.Account{Tokens: budget.AccountTokens{NetSavingAfterEntry: 1000, Encoding: "o200k_base"}}
	after := &budget.Account{Tokens: budget.AccountTokens{NetSavingAfterEntry: 1200, Encoding: "o200k_base"}}
	l := budget.NewLedger(before)
	l.Add(request.Usage{InputTokens: 500})
	l.Add(request.Usage{InputTokens: 600})
	l.SetAccount(after)
	l.Add(request.Usage{InputTokens: 700})
	var out bytes.Buffer
	require.NoError(t, l.Write(&out))
	header, _, _ := strings.Cut(out.String(), "\n")
	for _, row := range l.Turns() {
		assert.Equal(t, row.ResidentInput-row.InputTokens, row.Delta, "row %d", row.Turn)
	}
	assert.Contains(t, header, "+1,000 (requests 1-2)")
	assert.Contains(t, header, "+1,200 (request 3)")

	same := budget.NewLedger(before)
	same.Add(request.Usage{InputTokens: 500})
	out.Reset()
	require.NoError(t, same.Write(&out))
	assert.Contains(t, out.String(), "all-resident = input +1,000 tokens a request:", "one delta: the header as before")
}

// TestLedgerFollowsLiveSet (issue 48): a ledger that follows the session
// takes the account again itself after a Sync changed the tools: the
// line after the late server uses the live account's saving, recomputed
// here with AccountFor, and the header names both figures.
func TestLedgerFollowsLiveSet(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, []registry.Tool{lateTool("list_dir", "List the entries of a directory.")}))
	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(), Provider: request.Anthropic, Model: "claude-sonnet-4-5",
		Policy:  &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}},
		Pending: []string{"late"}, SelfBuilt: true,
		Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`1024`)},
	})
	require.NoError(t, err)
	c, err := budget.NewCounter("o200k_base")
	require.NoError(t, err)
	ledger, err := budget.FollowSession(s, &budget.LedgerOptions{Counter: c})
	require.NoError(t, err)
	first, err := budget.AccountFor(s, c)
	require.NoError(t, err)
	_, err = s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "hi"}}})
	require.NoError(t, err)
	l1 := ledger.Add(request.Usage{InputTokens: 1000})
	assert.Equal(t, first.Tokens.NetSavingAfterEntry, l1.Delta)

	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, []registry.Tool{
		lateTool("sum", "Add two numbers and return their sum."), lateTool("product", "Multiply two numbers and return their product.")}))
	_, err = s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	_, err = s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleAssistant, Text: "ok"}, {Role: request.RoleUser, Text: "add 2 and 3"}}})
	require.NoError(t, err)
	l2 := ledger.Add(request.Usage{InputTokens: 1200, CacheReadTokens: 900})
	live, err := budget.AccountFor(s, c)
	require.NoError(t, err)
	require.Equal(t, 2, live.ArrivedCount)
	assert.Equal(t, live.Tokens.NetSavingAfterEntry, l2.Delta, "no SetAccount by hand")
	assert.NotEqual(t, l1.Delta, l2.Delta)
	assert.Equal(t, 1200+live.Tokens.NetSavingAfterEntry, l2.ResidentInput)
	var out bytes.Buffer
	require.NoError(t, ledger.Write(&out))
	header, _, _ := strings.Cut(out.String(), "\n")
	assert.Contains(t, header, "(request 1)")
	assert.Contains(t, header, "(request 2)")
	assert.Nil(t, l2.Miss, "an arrival is announced append-only: no miss")
}

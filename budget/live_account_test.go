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

// lateTool is an MCP tool of a server that connects late.
func lateTool(name, desc string) registry.Tool {
	return registry.Tool{Name: name, Description: desc,
		RawSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)}
}

// TestAccountFollowsLiveSet (issue 37): after a late server's tools arrive
// and a frozen tool leaves, AccountFor counts the arrived tools as saved,
// the tool that left as a cost (the prefix still carries it), and the
// announcements placed in the history as a cost; the ledger's later lines
// use that saving. Every figure is recomputed here from the session's own
// tools and the request body's announcement blocks.
func TestAccountFollowsLiveSet(t *testing.T) {
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}))
	files := []registry.Tool{
		lateTool("list_dir", "List the entries of a directory."),
		lateTool("stat", "Show a file's size and modification time."),
	}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, files))
	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(), Provider: request.Anthropic, Model: "claude-sonnet-4-5",
		Policy:  &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("p", "Defer(mcp__*)")}},
		System:  "You are a coding agent.",
		Pending: []string{"late"},
		Extra:   map[string]json.RawMessage{"max_tokens": json.RawMessage(`1024`)},
	})
	require.NoError(t, err)
	c, err := budget.NewCounter("o200k_base")
	require.NoError(t, err)

	before, err := budget.AccountFor(s, c)
	require.NoError(t, err)
	assert.Zero(t, before.ArrivedCount+before.RemovedCount+before.AnnouncedChars, "nothing changed yet")
	ledger := budget.NewLedger(before)
	_, err = s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "hi"}}})
	require.NoError(t, err)
	ledger.Add(request.Usage{InputTokens: 1000})

	// The late server arrives with three tools; stat leaves files.
	late := []registry.Tool{
		lateTool("sum", "Add two numbers and return their sum."),
		lateTool("product", "Multiply two numbers and return their product."),
		lateTool("quotient", "Divide the first number by the second and return the quotient."),
	}
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "late"}, late))
	require.NoError(t, reg.ReplaceGroup(registry.Group{Name: "files"}, files[:1]))
	change, err := s.Sync(context.Background(), reg.Snapshot())
	require.NoError(t, err)
	require.Len(t, change.Added, 3)
	require.Equal(t, []string{"mcp__files__stat"}, change.Removed)

	arrived, removed, announced := s.LiveTools()
	require.Len(t, arrived, 3)
	require.Len(t, removed, 1)
	assert.Empty(t, announced, "announcements count once placed in a request")

	body, err := s.BuildRequest(request.Turn{Messages: []request.Message{
		{Role: request.RoleAssistant, Text: "ok"}, {Role: request.RoleUser, Text: "add 2 and 3"}}})
	require.NoError(t, err)
	_, _, announced = s.LiveTools()
	require.NotEmpty(t, announced)
	all := strings.Join(announced, "")
	assert.Contains(t, all, "<new_deferred_tool>\nmcp__late__sum (new from MCP server late)")
	assert.Contains(t, all, "mcp__files__stat")
	var sent strings.Builder
	for _, a := range announced {
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		require.NoError(t, e.Encode(a))
		q := bytes.TrimSpace(enc.Bytes())
		assert.True(t, bytes.Contains(body, q[1:len(q)-1]), "block %q is in the request", a)
		sent.WriteString(a)
	}
	wantArrived := 0
	for _, tl := range arrived {
		wantArrived += len([]rune(tl.Description)) + len([]rune(string(tl.ModelSchema())))
	}
	wantRemoved := len([]rune(removed[0].Description)) + len([]rune(string(removed[0].ModelSchema())))

	after, err := budget.AccountFor(s, c)
	require.NoError(t, err)
	assert.Equal(t, 3, after.ArrivedCount)
	assert.Equal(t, wantArrived, after.ArrivedChars)
	assert.Equal(t, 1, after.RemovedCount)
	assert.Equal(t, wantRemoved, after.RemovedChars)
	assert.Equal(t, len([]rune(sent.String())), after.AnnouncedChars)
	assert.Greater(t, after.AnnouncedChars, 0)
	assert.Equal(t, before.NetSaving+wantArrived-wantRemoved-after.AnnouncedChars, after.NetSaving)
	assert.Equal(t, before.NetSavingAfterEntry+wantArrived-wantRemoved-after.AnnouncedChars, after.NetSavingAfterEntry)
	assert.Equal(t, before.DeferredChars, after.DeferredChars, "the frozen figures stay")

	tok := after.Tokens
	assert.Positive(t, tok.Arrived)
	assert.Positive(t, tok.Removed)
	assert.Positive(t, tok.Announced)
	assert.Equal(t, before.Tokens.NetSavingAfterEntry+tok.Arrived-tok.Removed-tok.Announced, tok.NetSavingAfterEntry)

	var text bytes.Buffer
	require.NoError(t, after.WriteText(&text))
	assert.Contains(t, text.String(), "arrived after the freeze    3 tools")
	assert.Contains(t, text.String(), "left after the freeze       1 tools")
	assert.Contains(t, text.String(), "announcements sent")

	ledger.SetAccount(after)
	line := ledger.Add(request.Usage{InputTokens: 1200})
	assert.Equal(t, tok.NetSavingAfterEntry, line.Saved, "later lines use the live account's saving")
	total := ledger.Total()
	assert.Equal(t, before.Tokens.NetSavingAfterEntry+tok.NetSavingAfterEntry, total.Saved)
	assert.Equal(t, 2200+total.Saved, total.ResidentInput)
}

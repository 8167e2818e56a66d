package budget_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// preloadDoc is the page whose preload cost table TestBC025Preload keeps.
const preloadDoc = "../docs/search-quality.md"

// bc025Preloaded is each task's conversation with Config.Preload: the
// user message as a real session sent it (its <preloaded_tools> block
// included), then defer_execute with no search turn, the result and the
// answer.
func bc025Preloaded(t *testing.T, snap *registry.Snapshot) map[string]*budget.Transcript {
	t.Helper()
	var suite bc025Suite
	readJSON(t, testdata("benchmarks", "bc025", "task-suite.json"), &suite)
	var fx struct {
		Fixtures map[string]map[string]json.RawMessage `json:"fixtures"`
	}
	readJSON(t, testdata("benchmarks", "bc025", "fixtures.json"), &fx)
	out := map[string]*budget.Transcript{}
	for _, task := range suite.Tasks {
		s, err := request.NewSession(request.Config{Snapshot: snap, Policy: &deferral.Policy{Default: deferral.DefaultDefer},
			Provider: request.OpenAIChat, Model: "gpt-4o", Preload: true})
		require.NoError(t, err)
		_, err = s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: task.Prompt}}})
		require.NoError(t, err)
		call := task.ReferenceTrace[0]
		require.Equal(t, []string{call.Tool}, s.LoadedNames(), "%s: the task's tool is preloaded", task.ID)
		user := s.Messages()[0]
		require.Len(t, user.Blocks, 1)
		args := json.RawMessage(jsonx.AppendCompact(nil, call.Arguments))
		execArgs := jsonx.AppendObject(nil, []jsonx.Member{
			{Key: "tool_name", Value: jsonx.AppendString(nil, call.Tool)},
			{Key: "params", Value: args},
		})
		msgs := []request.Message{
			user,
			{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "call_1", Name: registry.DeferExecuteName, Arguments: execArgs}}},
			{Role: request.RoleTool, CallID: "call_1", Text: bc025Result(t, fx.Fixtures, call.Tool, args)},
			{Role: request.RoleAssistant, Text: string(jsonx.AppendCompact(nil, task.ExpectedOutput))},
		}
		data, err := json.Marshal(msgs)
		require.NoError(t, err)
		tr, err := budget.ParseTranscript(task.ID+".preload", data)
		require.NoError(t, err)
		out[task.ID] = tr
	}
	return out
}

// TestBC025Preload replays the four bc025 tasks three ways — always-on,
// deferred with the search round trip, deferred with Config.Preload —
// with gpt-4o's tokenizer, and keeps the table in docs/search-quality.md.
// The bar (issue 38): with preload on, no task is dearer than always-on.
func TestBC025Preload(t *testing.T) {
	snap, alwaysPrefix, deferredPrefix := bc025Prefixes(t)
	c := budget.CounterForModel("gpt-4o")
	var suite bc025Suite
	readJSON(t, testdata("benchmarks", "bc025", "task-suite.json"), &suite)
	pre := bc025Preloaded(t, snap)
	var b strings.Builder
	b.WriteString("| task | always-on: requests → input (first request) | deferred: requests → input (first request) | deferred + preload: requests → input (first request) | preload vs always-on | preload vs deferred |\n|---|--:|--:|--:|--:|--:|\n")
	var sa, sd, sp int
	for _, task := range suite.Tasks {
		a := c.TaskCost(alwaysPrefix, loadTranscript(t, testdata("transcripts", "bc025", task.ID+".always-on.json")))
		d := c.TaskCost(deferredPrefix, loadTranscript(t, testdata("transcripts", "bc025", task.ID+".deferred.json")))
		p := c.TaskCost(deferredPrefix, pre[task.ID])
		require.False(t, a.Input.Estimate || d.Input.Estimate || p.Input.Estimate)
		assert.Equal(t, 2, p.Requests, "%s: no search turn", task.ID)
		assert.LessOrEqual(t, p.Input.N, a.Input.N, "%s: preload is no dearer than always-on", task.ID)
		assert.Less(t, p.Input.N, d.Input.N, "%s: preload saves the round trip", task.ID)
		fmt.Fprintf(&b, "| %s | %d → %s (%s) | %d → %s (%s) | %d → %s (%s) | %s | %s |\n", task.ID,
			a.Requests, a.Input, a.PerRequest[0], d.Requests, d.Input, d.PerRequest[0], p.Requests, p.Input, p.PerRequest[0],
			pct(p.Input.N, a.Input.N), pct(p.Input.N, d.Input.N))
		sa, sd, sp = sa+a.Input.N, sd+d.Input.N, sp+p.Input.N
	}
	fmt.Fprintf(&b, "| all 4 tasks | 8 → %s | 12 → %s | 8 → %s | %s | %s |\n", budget.Tokens{N: sa}, budget.Tokens{N: sd}, budget.Tokens{N: sp}, pct(sp, sa), pct(sp, sd))
	checkDocBlock(t, preloadDoc, "TestBC025Preload", b.String())
}

// TestQuickstartPreload: the quickstart's first message ("Open a pull
// request …") is not one the gate is sure of — its best hit is
// update_pull_request_title, not create_pull_request — so Preload sends
// the same bytes as without it, and the search turn stays.
func TestQuickstartPreload(t *testing.T) {
	reg := registry.New(nil)
	dir := filepath.Join("..", "examples", "quickstart", "catalogs")
	for _, f := range []string{"github.tools.json", "filesystem.tools.json", "kubernetes.tools.json", "playwright.tools.json"} {
		c, err := registry.LoadCatalog(filepath.Join(dir, f))
		require.NoError(t, err)
		require.NoError(t, reg.Import(c))
	}
	for _, msg := range []string{
		`Open a pull request in acme/webapp from fix-typo into main, titled "Fix typo in README".`,
		"How many TODO comments are left in the repository? Write yourself a tool if none fits.",
	} {
		var bodies [2][]byte
		for i, on := range []bool{false, true} {
			s, err := request.NewSession(request.Config{Snapshot: reg.Snapshot(), Provider: request.Anthropic, Model: "claude-sonnet-4-5",
				Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}, Preload: on,
				Policy: &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("harness", "Defer(mcp__*)")}}})
			require.NoError(t, err)
			bodies[i], err = s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: msg}}})
			require.NoError(t, err)
			assert.Empty(t, s.LoadedNames(), msg)
		}
		assert.Equal(t, string(bodies[0]), string(bodies[1]), msg)
	}
}

func pct(n, of int) string { return fmt.Sprintf("%+.1f%%", 100*float64(n-of)/float64(of)) }

// checkDocBlock compares the part of the file at path between the markers
// named name with got, or rewrites it under TOOLSHELF_UPDATE=1.
func checkDocBlock(t *testing.T, path, name, got string) {
	t.Helper()
	begin, end := "<!-- "+name+": begin -->\n", "<!-- "+name+": end -->\n"
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	require.True(t, i >= 0 && j > i, "%s needs the markers %q", path, begin)
	if goldenfile.Updating() {
		require.NoError(t, os.WriteFile(path, []byte(doc[:i+len(begin)]+got+doc[j:]), 0o644))
		return
	}
	assert.Equal(t, doc[i+len(begin):j], got, "figures changed: run TOOLSHELF_UPDATE=1 go test ./budget -run TestBC025Preload")
}

package budget_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/render"
)

// bc025Suite is the part of task-suite.json the replay needs.
type bc025Suite struct {
	Tasks []struct {
		ID             string          `json:"id"`
		Prompt         string          `json:"prompt"`
		ExpectedOutput json.RawMessage `json:"expected_output"`
		ReferenceTrace []struct {
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"reference_trace"`
	} `json:"tasks"`
}

// bc025Result is the tool result each task's call returns: the fixture
// record (currency_convert computes from its rate table).
func bc025Result(t *testing.T, fixtures map[string]map[string]json.RawMessage, tool string, args json.RawMessage) string {
	t.Helper()
	var a map[string]any
	require.NoError(t, json.Unmarshal(args, &a))
	if tool == "currency_convert" {
		key := a["from_currency"].(string) + ":" + a["to_currency"].(string)
		var rate float64
		require.NoError(t, json.Unmarshal(fixtures[tool][key], &rate))
		out, err := jsonx.Marshal(map[string]any{
			"amount": a["amount"], "from_currency": a["from_currency"], "to_currency": a["to_currency"],
			"rate": rate, "converted": a["amount"].(float64) * rate,
		})
		require.NoError(t, err)
		return string(out)
	}
	for _, v := range a {
		if rec, ok := fixtures[tool][v.(string)]; ok {
			return string(jsonx.AppendCompact(nil, rec))
		}
	}
	t.Fatalf("no fixture for %s %s", tool, args)
	return ""
}

// bc025Transcripts writes, for each task, the conversation always-on (the
// model calls the tool directly) and deferred (tool_search → schema →
// defer_execute), in the neutral message form.
func bc025Transcripts(t *testing.T, snap *registry.Snapshot) map[string][]byte {
	t.Helper()
	var suite bc025Suite
	readJSON(t, testdata("benchmarks", "bc025", "task-suite.json"), &suite)
	var fx struct {
		Fixtures map[string]map[string]json.RawMessage `json:"fixtures"`
	}
	readJSON(t, testdata("benchmarks", "bc025", "fixtures.json"), &fx)
	out := map[string][]byte{}
	for _, task := range suite.Tasks {
		require.Len(t, task.ReferenceTrace, 1)
		call := task.ReferenceTrace[0]
		args := json.RawMessage(jsonx.AppendCompact(nil, call.Arguments))
		result := bc025Result(t, fx.Fixtures, call.Tool, args)
		final := string(jsonx.AppendCompact(nil, task.ExpectedOutput))
		user := message{Role: "user", Text: task.Prompt}

		always := []message{
			user,
			{Role: "assistant", ToolCalls: []toolCall{{ID: "call_1", Name: call.Tool, Arguments: args}}},
			{Role: "tool", CallID: "call_1", Text: result},
			{Role: "assistant", Text: final},
		}

		tool, ok := snap.Tool(call.Tool)
		require.True(t, ok, call.Tool)
		def := jsonx.AppendObject(nil, []jsonx.Member{
			{Key: "name", Value: jsonx.AppendString(nil, tool.Name)},
			{Key: "description", Value: jsonx.AppendString(nil, tool.Description)},
			{Key: "input_schema", Value: tool.ModelSchema()},
		})
		searchArgs, _ := jsonx.Marshal(map[string][]string{"tool_names": {call.Tool}})
		execArgs := jsonx.AppendObject(nil, []jsonx.Member{
			{Key: "tool_name", Value: jsonx.AppendString(nil, call.Tool)},
			{Key: "params", Value: args},
		})
		deferred := []message{
			user,
			{Role: "assistant", ToolCalls: []toolCall{{ID: "call_1", Name: registry.ToolSearchName, Arguments: searchArgs}}},
			{Role: "tool", CallID: "call_1", Text: "[" + string(def) + "]"},
			{Role: "assistant", ToolCalls: []toolCall{{ID: "call_2", Name: registry.DeferExecuteName, Arguments: execArgs}}},
			{Role: "tool", CallID: "call_2", Text: result},
			{Role: "assistant", Text: final},
		}
		for mode, msgs := range map[string][]message{"always-on": always, "deferred": deferred} {
			b, err := json.MarshalIndent(msgs, "", "  ")
			require.NoError(t, err)
			out[task.ID+"."+mode+".json"] = append(b, '\n')
		}
	}
	return out
}

// message and toolCall mirror request.Message and request.ToolCall (the
// library's neutral message form, the transcript file form) so that these
// tests do not depend on package request.
type message struct {
	Role      string     `json:"role"`
	Text      string     `json:"text,omitempty"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
	CallID    string     `json:"call_id,omitempty"`
	IsError   bool       `json:"is_error,omitempty"`
}

type toolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

// bc025Prefixes returns the prefix of every request: all 20 tools
// always-on; tool_search (its description carrying the index) and
// defer_execute when the 20 are deferred. bc025 publishes no system prompt.
func bc025Prefixes(t *testing.T) (snap *registry.Snapshot, alwaysOn, deferred []budget.Section) {
	t.Helper()
	reg := registry.New(nil)
	c, err := registry.LoadCatalog(testdata("benchmarks", "bc025", "catalog.json"))
	require.NoError(t, err)
	require.NoError(t, reg.Import(c))
	snap = reg.Snapshot()
	for _, tool := range snap.Tools() {
		alwaysOn = append(alwaysOn, budget.ToolSections(tool, budget.ClassTool)...)
	}
	plan, err := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(snap, deferral.View{})
	require.NoError(t, err)
	require.Len(t, plan.Deferred(), 20)
	s, err := toolsearch.New(plan, nil)
	require.NoError(t, err)
	// Rendered as package request renders it for a session.
	desc, err := render.Description(&registry.Tool{Name: registry.ToolSearchName, Description: toolsearch.DescriptionTemplate, Template: true}, render.Vars{Session: map[string]string{"index": s.IndexText()}})
	require.NoError(t, err)
	ts, de := toolsearch.Definition(desc), toolsearch.ExecuteDefinition()
	deferred = append(budget.ToolSections(&ts, budget.ClassEntry), budget.ToolSections(&de, budget.ClassEntry)...)
	return snap, alwaysOn, deferred
}

// TestBC025Transcripts keeps testdata/transcripts/bc025 in step with the
// suite: run with TOOLSHELF_UPDATE=1 to rewrite them.
func TestBC025Transcripts(t *testing.T) {
	snap, _, _ := bc025Prefixes(t)
	files := bc025Transcripts(t, snap)
	require.Len(t, files, 8)
	dir := testdata("transcripts", "bc025")
	for name, want := range files {
		path := filepath.Join(dir, name)
		if goldenfile.Updating() {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(path, want, 0o644))
			continue
		}
		got, err := os.ReadFile(path)
		require.NoError(t, err, "run TOOLSHELF_UPDATE=1 go test ./budget -run BC025")
		assert.Equal(t, string(want), string(got), name)
	}
}

// TestBC025Replay replays the four tasks both ways with gpt-4o's tokenizer
// and checks the table in testdata/bc025-table.md (TOOLSHELF_UPDATE=1 rewrites it).
func TestBC025Replay(t *testing.T) {
	_, alwaysPrefix, deferredPrefix := bc025Prefixes(t)
	c := budget.CounterForModel("gpt-4o")
	var suite bc025Suite
	readJSON(t, testdata("benchmarks", "bc025", "task-suite.json"), &suite)
	var rows []budget.TaskComparison
	for _, task := range suite.Tasks {
		a := loadTranscript(t, testdata("transcripts", "bc025", task.ID+".always-on.json"))
		d := loadTranscript(t, testdata("transcripts", "bc025", task.ID+".deferred.json"))
		ac, dc := c.TaskCost(alwaysPrefix, a), c.TaskCost(deferredPrefix, d)
		ac.Task, dc.Task = task.ID, task.ID
		// As published: 2 model requests always-on, 3 deferred.
		assert.Equal(t, 2, ac.Requests, task.ID)
		assert.Equal(t, 3, dc.Requests, task.ID)
		assert.False(t, ac.Input.Estimate)
		// Each request re-reads the prefix: input ≥ requests × prefix.
		assert.GreaterOrEqual(t, ac.Input.N, 2*ac.Prefix.N)
		assert.GreaterOrEqual(t, dc.Input.N, 3*dc.Prefix.N)
		rows = append(rows, budget.Compare(ac, dc))
	}
	table := budget.TaskTable(rows)
	golden(t, filepath.Join("testdata", "bc025-table.md"), table)
}

// loadTranscript reads a transcript file through package request, which
// owns the message form.
func loadTranscript(t *testing.T, path string) *budget.Transcript {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	name := strings.TrimSuffix(filepath.Base(path), ".json")
	tr, err := budget.ParseTranscript(name, data)
	require.NoError(t, err, path)
	return tr
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if goldenfile.Updating() {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with TOOLSHELF_UPDATE=1 to create %s", path)
	assert.Equal(t, string(want), got)
}

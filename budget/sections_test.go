package budget_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// githubSession is a session over the github catalog with the given
// policy, provider and tool search mode.
func githubSession(t *testing.T, p request.Provider, policy *deferral.Policy, mode request.ToolSearch, items ...string) *request.Session {
	t.Helper()
	reg := registry.New(nil)
	c, err := registry.LoadCatalog(testdata("catalogs", "github.tools.json"))
	require.NoError(t, err)
	require.NoError(t, reg.Import(c))
	model := "test-model"
	if p == request.OpenAIResponses {
		model = "gpt-5.4" // documented for the hosted tool search
	}
	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(), Policy: policy, Provider: p, Model: model, ToolSearch: mode,
		System: "You are a coding agent.", SystemItems: items,
		Extra: map[string]json.RawMessage{"max_tokens": json.RawMessage(`4096`)},
	})
	require.NoError(t, err)
	return s
}

var allDeferred = &deferral.Policy{Default: deferral.DefaultDefer}

// nativeTurns is a conversation in Anthropic's native mode: the provider
// searches, the model calls the found tool directly.
func nativeTurns(turns int) []request.Turn {
	out := []request.Turn{{Messages: []request.Message{{Role: request.RoleUser, Text: "Find open issues about flaky tests"}},
		Inject: []string{"<system-reminder>clean tree</system-reminder>"}}}
	for i := range turns {
		id := fmt.Sprint(i)
		out = append(out, request.Turn{Messages: []request.Message{
			{Role: request.RoleAssistant, Text: "Searching.", Native: []json.RawMessage{
				json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_` + id + `","name":"tool_search_tool_bm25","input":{"query":"list issues"}}`),
				json.RawMessage(`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_` + id + `","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"mcp__github__list_issues"}]}}`),
			}, ToolCalls: []request.ToolCall{
				{ID: "call_" + id, Name: "mcp__github__list_issues", Arguments: json.RawMessage(`{"owner":"o","repo":"r"}`)},
			}},
			{Role: request.RoleTool, CallID: "call_" + id, Text: "[]"},
			{Role: request.RoleUser, Text: fmt.Sprintf("and again (%d)", i)},
		}})
	}
	return out
}

// TestTranscriptFromSessionMessages saves a native session's messages —
// host blocks on user messages, native parts on assistant messages — as
// json.Marshal writes them, and loads the file as a transcript: the one
// Message type round-trips, and the replay counts exactly what the live
// session's sections count.
func TestTranscriptFromSessionMessages(t *testing.T) {
	s := githubSession(t, request.Anthropic, allDeferred, request.Native)
	for _, turn := range nativeTurns(3) {
		_, err := s.BuildRequest(turn)
		require.NoError(t, err)
	}
	saved, err := json.Marshal(s.Messages())
	require.NoError(t, err)
	require.Contains(t, string(saved), `"blocks":[`, "the saved transcript carries host blocks")
	require.Contains(t, string(saved), `"native":[`, "the saved transcript carries native parts")

	tr, err := budget.ParseTranscript("native", saved)
	require.NoError(t, err)
	assistants, blocks := 0, 0
	for _, m := range s.Messages() {
		if m.Role == request.RoleAssistant {
			assistants++
		}
		blocks += len(m.Blocks)
	}
	require.Len(t, tr.ByModel, len(tr.Messages))
	byModel, injected := 0, 0
	for i, sec := range tr.Messages {
		if tr.ByModel[i] {
			byModel++
			assert.Equal(t, budget.KindJSON, sec.Kind, "an assistant message with native parts and calls is JSON")
		}
		if sec.Class == budget.ClassInjection {
			injected++
		}
	}
	assert.Equal(t, assistants, byModel, "one model request per assistant message")
	assert.Equal(t, blocks, injected, "every host block is measured")
	assert.Equal(t, 3, tr.ToolCalls)
	assert.Contains(t, tr.Messages[2].Text, `"type":"server_tool_use"`, "native parts are measured")

	c, err := budget.NewCounter(budget.O200kBase)
	require.NoError(t, err)
	var live budget.Size
	for _, sec := range budget.Sections(s) {
		if sec.Class == budget.ClassMessage || sec.Class == budget.ClassInjection {
			live = live.Add(c.Measure([]budget.Section{sec}).Total)
		}
	}
	assert.Equal(t, live, c.Measure(tr.Messages).Total, "the live session and its saved transcript measure the same")
	cost := c.TaskCost(nil, tr)
	assert.Equal(t, assistants, cost.Requests)
}

// TestSessionSections checks the sections of a session against its frozen
// prefix: the index is its own section, cut from tool_search's description;
// each exposed tool's schema is measured as sent; the entry tools are
// ClassEntry; and a native mode's deferred tools are left out.
func TestSessionSections(t *testing.T) {
	githubPolicy := &deferral.Policy{Layers: []deferral.Layer{
		deferral.MustLayer("project", "Defer(mcp__github__*)", "NoDefer(mcp__github__get_*)"),
	}}
	t.Run("portable", func(t *testing.T) {
		s := githubSession(t, request.OpenAIChat, githubPolicy, request.Portable, "skill b", "skill a")
		_, err := s.BuildRequest(request.Turn{Messages: []request.Message{{Role: request.RoleUser, Text: "Find open issues"}}})
		require.NoError(t, err)
		secs := budget.Sections(s)
		c := budget.CounterForModel("gpt-4o")
		m := c.Measure(secs)
		f := s.Frozen()
		require.NotEmpty(t, f.Index)
		assert.Equal(t, len(f.Index), m.ByClass(budget.ClassIndex).Bytes)
		var system []string
		schemas := 0
		for _, sec := range secs {
			switch sec.Class {
			case budget.ClassSystem:
				system = append(system, sec.Text)
			case budget.ClassEntry:
				assert.NotContains(t, sec.Text, f.Index, "the index is counted once")
			}
			if sec.Kind == budget.KindJSON && (sec.Class == budget.ClassTool || sec.Class == budget.ClassEntry) {
				schemas += len(sec.Text)
			}
			assert.True(t, sec.Frozen)
		}
		assert.Equal(t, []string{"You are a coding agent.", "skill a", "skill b"}, system, "Config.System, then the items sorted")
		want := 0
		for _, ft := range f.Tools {
			want += len(ft.Schema)
		}
		assert.Equal(t, want, schemas)
		assert.Equal(t, m, c.Measure(budget.Sections(s)), "same sections, same measurement")
	})
	t.Run("native", func(t *testing.T) {
		s := githubSession(t, request.Anthropic, allDeferred, request.Native)
		deferred := 0
		for _, ft := range s.Frozen().Tools {
			if ft.Deferred {
				deferred++
				for _, sec := range budget.Sections(s) {
					assert.NotEqual(t, ft.Name, sec.Name, "a deferred tool stays out of the model's context")
				}
			}
		}
		assert.Positive(t, deferred)
	})
}

func TestParseTranscriptErrors(t *testing.T) {
	for _, bad := range []string{
		`{}`,
		`[{"role":"system","text":"x"}]`,
		`[{"role":"assistant","tool_calls":[{"id":"1","name":"","arguments":{}}]}]`,
		`[{"role":"assistant","tool_calls":[{"id":"1","name":"X","arguments":[1]}]}]`,
		`[{"role":"assistant","native":["a string"]}]`,
		`[{"role":"user","txt":"typo"}]`,
	} {
		_, err := budget.ParseTranscript("t", []byte(bad))
		assert.ErrorIs(t, err, request.ErrInvalidMessage, bad)
	}
	// A call without arguments is sent as {}, and measured so.
	tr, err := budget.ParseTranscript("t", []byte(`[{"role":"assistant","tool_calls":[{"id":"1","name":"X"}]}]`))
	require.NoError(t, err)
	assert.Equal(t, "X{}", tr.Messages[0].Text)
	assert.True(t, strings.HasPrefix(tr.Messages[0].Name, "message 0"))
}

// TestSessionSectionsDropMessages: a session that drops its neutral
// messages (Config.DropMessages) still sends them; its sections count
// them, as encoded.
func TestSessionSectionsDropMessages(t *testing.T) {
	turns := [][]request.Message{
		{{Role: request.RoleUser, Text: "Find open issues in the toolshelf repository"}},
		{{Role: request.RoleAssistant, Text: "There are three."}, {Role: request.RoleUser, Text: "Close the oldest one"}},
	}
	c := budget.CounterForModel("gpt-4o")
	reg := registry.New(nil)
	cat, err := registry.LoadCatalog(testdata("catalogs", "github.tools.json"))
	require.NoError(t, err)
	require.NoError(t, reg.Import(cat))
	for _, p := range []request.Provider{request.Anthropic, request.OpenAIChat, request.OpenAIResponses, request.Gemini} {
		t.Run(string(p), func(t *testing.T) {
			extra := map[string]json.RawMessage{"max_tokens": json.RawMessage(`4096`)}
			switch p {
			case request.OpenAIResponses:
				extra = map[string]json.RawMessage{"max_output_tokens": json.RawMessage(`4096`)}
			case request.Gemini:
				extra = map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"maxOutputTokens":4096}`)}
			}
			s, err := request.NewSession(request.Config{
				Snapshot: reg.Snapshot(), Policy: allDeferred, Provider: p, Model: "test-model",
				Extra: extra, DropMessages: true,
			})
			require.NoError(t, err)
			assert.Zero(t, c.Measure(budget.Sections(s)).ByClass(budget.ClassMessage).Bytes, "no messages yet")
			var body []byte
			for _, msgs := range turns {
				body, err = s.BuildRequest(request.Turn{Messages: msgs})
				require.NoError(t, err)
			}
			require.Nil(t, s.Messages())
			m := c.Measure(budget.Sections(s)).ByClass(budget.ClassMessage)
			hist := len(body) - len(s.Prefix()) - len("]}")
			assert.InDelta(t, hist, m.Bytes, 1, "the encoded history, as sent")
			assert.Greater(t, m.Tokens.N, 10)
		})
	}
}

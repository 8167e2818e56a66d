package request

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/budget"
)

// TestTranscriptFromSessionMessages saves a native session's messages —
// host blocks on user messages, native parts on assistant messages — as
// json.Marshal writes them, and loads the file as a budget transcript: the
// one Message type round-trips, and the replay counts exactly what the live
// session's sections count.
func TestTranscriptFromSessionMessages(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	cfg := testConfig(reg.Snapshot(), Anthropic, allDeferred(), nil)
	cfg.ToolSearch = Native
	s, err := NewSession(cfg)
	require.NoError(t, err)
	for _, turn := range nativeScript(Anthropic, 3) {
		_, err := s.BuildRequest(turn)
		require.NoError(t, err)
	}
	saved, err := json.Marshal(s.Messages())
	require.NoError(t, err)
	require.Contains(t, string(saved), `"blocks":[`, "the saved transcript carries host blocks")
	require.Contains(t, string(saved), `"native":[`, "the saved transcript carries native parts")

	tr, err := ParseTranscript("native", saved)
	require.NoError(t, err)
	assistants, blocks := 0, 0
	for _, m := range s.Messages() {
		if m.Role == RoleAssistant {
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
	for _, sec := range s.Sections() {
		if sec.Class == budget.ClassMessage || sec.Class == budget.ClassInjection {
			live = live.Add(c.Measure([]budget.Section{sec}).Total)
		}
	}
	assert.Equal(t, live, c.Measure(tr.Messages).Total, "the live session and its saved transcript measure the same")
	cost := c.TaskCost(nil, tr)
	assert.Equal(t, assistants, cost.Requests)
}

// TestSessionSections checks what Sections hands budget against the frozen
// prefix: the index is its own section, cut from tool_search's description;
// each exposed tool's schema is measured as sent; the entry tools are
// ClassEntry; and a native mode's deferred tools are left out.
func TestSessionSections(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	t.Run("portable", func(t *testing.T) {
		cfg := testConfig(reg.Snapshot(), OpenAIChat, githubPolicy(), nil)
		cfg.SystemItems = []string{"skill b", "skill a"}
		s, err := NewSession(cfg)
		require.NoError(t, err)
		_, err = s.BuildRequest(script()[0])
		require.NoError(t, err)
		secs := s.Sections()
		c := budget.CounterForModel("gpt-4o")
		m := c.Measure(secs)
		f := s.Frozen()
		require.NotEmpty(t, f.Index())
		assert.Equal(t, len(f.Index()), m.ByClass(budget.ClassIndex).Bytes)
		var system []string
		schemas := 0
		for _, sec := range secs {
			switch sec.Class {
			case budget.ClassSystem:
				system = append(system, sec.Text)
			case budget.ClassEntry:
				assert.NotContains(t, sec.Text, f.Index(), "the index is counted once")
			}
			if sec.Kind == budget.KindJSON && (sec.Class == budget.ClassTool || sec.Class == budget.ClassEntry) {
				schemas += len(sec.Text)
			}
			assert.True(t, sec.Frozen)
		}
		assert.Equal(t, systemTexts(&cfg), system)
		want := 0
		for _, ft := range f.Tools() {
			want += len(ft.Schema)
		}
		assert.Equal(t, want, schemas)
		assert.Equal(t, m, c.Measure(s.Sections()), "same sections, same measurement")
	})
	t.Run("native", func(t *testing.T) {
		cfg := testConfig(reg.Snapshot(), Anthropic, allDeferred(), nil)
		cfg.ToolSearch = Native
		s, err := NewSession(cfg)
		require.NoError(t, err)
		deferred := 0
		for _, ft := range s.Frozen().Tools() {
			if ft.Deferred {
				deferred++
				for _, sec := range s.Sections() {
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
		_, err := ParseTranscript("t", []byte(bad))
		assert.ErrorIs(t, err, ErrInvalidMessage, bad)
	}
	// A call without arguments is sent as {}, and measured so.
	tr, err := ParseTranscript("t", []byte(`[{"role":"assistant","tool_calls":[{"id":"1","name":"X"}]}]`))
	require.NoError(t, err)
	assert.Equal(t, "X{}", tr.Messages[0].Text)
	assert.True(t, strings.HasPrefix(tr.Messages[0].Name, "message 0"))
}

package request

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolshelf/toolshelf/internal/engine/toolname"
)

// TestCallIDAliasUniqueAcrossHistory is issue 22's case 10: "A later
// call's id equal to an earlier call's alias gives two tool_use blocks
// with one id in one body." The later call is now refused, whether it
// comes a turn later or in the same turn; a call that reuses its own id
// is not affected, and a refused turn leaves the session as it was.
func TestCallIDAliasUniqueAcrossHistory(t *testing.T) {
	reg, _ := loadCatalogs(t, 0, githubFile)
	earlier := map[Provider]string{
		OpenAIChat:      "call_" + strings.Repeat("x", 60), // over Chat's 40 characters
		OpenAIResponses: "call_" + strings.Repeat("x", 70), // over the Responses API's 64
		Anthropic:       "toolu.01",                        // "." is outside Anthropic's id rule
	}
	exchange := func(id string) []Message {
		return []Message{
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: "Read"}}},
			{Role: RoleTool, CallID: id, Text: "ok"},
			{Role: RoleAssistant, Text: "done"},
			userMsg("again"),
		}
	}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			id, ok := earlier[p]
			if !ok {
				t.Skipf("%s sends every call id as it is: no alias to collide with", p)
			}
			enc, _ := encoderFor(p)
			alias := enc.traits().callID(id)
			require.Equal(t, toolname.CallIDAlias(id), alias)
			require.Equal(t, alias, enc.traits().callID(alias), "the alias is sent as itself")

			s, err := NewSession(testConfig(reg.Snapshot(), p, githubPolicy(), nil))
			require.NoError(t, err)
			_, err = s.BuildRequest(Turn{Messages: append([]Message{userMsg("go")}, exchange(id)...)})
			require.NoError(t, err)
			before := len(s.Messages())
			_, err = s.BuildRequest(Turn{Messages: exchange(alias)})
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidMessage)
			assert.Contains(t, err.Error(), alias)
			assert.Len(t, s.Messages(), before, "a refused turn adds nothing")

			// In one turn, too.
			s2, err := NewSession(testConfig(reg.Snapshot(), p, githubPolicy(), nil))
			require.NoError(t, err)
			_, err = s2.BuildRequest(Turn{Messages: append(append([]Message{userMsg("go")}, exchange(id)...), exchange(alias)...)})
			assert.ErrorIs(t, err, ErrInvalidMessage)

			// The same id again is the harness's business, as before.
			_, err = s.BuildRequest(Turn{Messages: exchange(id)})
			assert.NoError(t, err)
		})
	}
}

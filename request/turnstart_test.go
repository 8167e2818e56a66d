package request

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

// TestUserAfterToolResultsRefused: a turn that opens with the user's text
// right after tool results (the loop dropped the model's answer to them)
// is refused for every provider, with the fix named, and changes nothing;
// the same user message after the answer, or in the results' own turn
// (the user spoke while the tools ran), is accepted.
func TestUserAfterToolResultsRefused(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			open := func() *Session {
				s, err := NewSession(testConfig(registry.New(nil).Snapshot(), p, nil, nil))
				require.NoError(t, err)
				_, err = s.BuildRequest(Turn{Messages: []Message{userMsg("Find the issue.")}})
				require.NoError(t, err)
				_, err = s.BuildRequest(Turn{Messages: []Message{call("call_1", "tool_search", `{"queries":["issues"]}`), result("call_1", "Loaded: x")}})
				require.NoError(t, err)
				return s
			}
			s := open()
			before := len(s.Messages())
			_, err := s.BuildRequest(Turn{Messages: []Message{userMsg("And the next one?")}})
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidMessage), "%v", err)
			assert.Contains(t, err.Error(), "messages[3]: user message right after tool results")
			assert.Contains(t, err.Error(), "add the reply (reply.Message, role assistant) to the turn")
			assert.Len(t, s.Messages(), before, "nothing changed")

			_, err = s.BuildRequest(Turn{Messages: []Message{{Role: RoleAssistant, Text: "Issue 7."}, userMsg("And the next one?")}})
			assert.NoError(t, err, "the answer, then the next message")

			s = open()
			_, err = s.BuildRequest(Turn{Messages: []Message{call("call_2", "tool_search", `{"queries":["pulls"]}`), result("call_2", "Loaded: y"), userMsg("Also pulls.")}})
			assert.NoError(t, err, "a user message in the results' own turn")
		})
	}
}

package requesttest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/request"
)

// conversation returns the bodies of four turns of one session.
func conversation(t *testing.T, p request.Provider) [][]byte {
	t.Helper()
	reg := registry.New(nil)
	obj := json.RawMessage(`{"type":"object"}`)
	require.NoError(t, reg.Register(
		registry.Tool{Name: "Read", Description: "Read a file.", RawSchema: obj},
		registry.Tool{Name: "Deploy", Description: "Deploy the app.", RawSchema: obj},
	))
	// Each API names its output bound its own way.
	extra := map[string]json.RawMessage{"max_tokens": json.RawMessage("1024")}
	switch p {
	case request.OpenAIResponses:
		extra = map[string]json.RawMessage{"max_output_tokens": json.RawMessage("1024")}
	case request.Gemini:
		extra = map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"maxOutputTokens":1024}`)}
	}
	s, err := request.NewSession(request.Config{
		Snapshot: reg.Snapshot(), Provider: p, Model: "m", System: "Be brief.",
		Extra:  extra,
		Policy: &deferral.Policy{Layers: []deferral.Layer{deferral.MustLayer("h", "Defer(Deploy)")}},
	})
	require.NoError(t, err)
	turns := []request.Turn{
		{Messages: []request.Message{{Role: request.RoleUser, Text: "read a.go"}}},
		{Messages: []request.Message{
			{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
			{Role: request.RoleTool, CallID: "c1", Text: "package a"},
		}},
		{Messages: []request.Message{{Role: request.RoleAssistant, Text: "It is package a."}, {Role: request.RoleUser, Text: "thanks"}}},
		{Messages: []request.Message{{Role: request.RoleAssistant, Text: "You're welcome."}, {Role: request.RoleUser, Text: "bye"}}},
		{Messages: []request.Message{
			{Role: request.RoleAssistant, ToolCalls: []request.ToolCall{{ID: "c2", Name: "Read", Arguments: json.RawMessage(`{"path":"b.go"}`)}}},
			{Role: request.RoleTool, CallID: "c2", Text: "package b"},
		}},
		// A user message right after a tool result: on Anthropic it joins
		// the tool result's user message.
		{Messages: []request.Message{{Role: request.RoleUser, Text: "and c.go?"}}},
	}
	var bodies [][]byte
	for _, turn := range turns {
		b, err := s.BuildRequest(turn)
		require.NoError(t, err)
		bodies = append(bodies, b)
	}
	return bodies
}

func TestAssertAppendOnly(t *testing.T) {
	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini} {
		t.Run(string(p), func(t *testing.T) {
			bodies := conversation(t, p)
			for i := 1; i < len(bodies); i++ {
				f := &fakeT{TB: t}
				assert.True(t, AssertAppendOnly(f, p, bodies[i-1], bodies[i]), "turn %d: %v", i, f.errs)
				assert.Empty(t, f.errs)
				naive := bytes.HasPrefix(bodies[i], bodies[i-1][:len(bodies[i-1])-2])
				// Anthropic's latest-turn breakpoint moves: the plain
				// prefix test fails there and only there.
				// Gemini joins a turn that opens with a user-side message
				// to the last user content: there it depends on the turn.
				if p != request.Gemini {
					assert.Equal(t, p != request.Anthropic, naive, "turn %d", i)
				}
			}

			// A changed history byte is reported with its path.
			bad := bytes.Clone(bodies[2])
			k := bytes.Index(bad, []byte("read a.go"))
			require.Positive(t, k)
			bad[k] = 'R'
			f := &fakeT{TB: t}
			assert.False(t, AssertAppendOnly(f, p, bodies[1], bad))
			require.Len(t, f.errs, 1)
			assert.Contains(t, f.errs[0], "does not extend")
			assert.Regexp(t, `(messages|input|contents)\[`, f.errs[0])

			// A body that drops the end of the previous one fails.
			f = &fakeT{TB: t}
			assert.False(t, AssertAppendOnly(f, p, bodies[2], bodies[1]))
			assert.NotEmpty(t, f.errs)

			// A different prefix fails too.
			other := bytes.Replace(bodies[1], []byte("Be brief."), []byte("Be terse."), 1)
			f = &fakeT{TB: t}
			assert.False(t, AssertAppendOnly(f, p, bodies[0], other))
			assert.NotEmpty(t, f.errs)
		})
	}
	f := &fakeT{TB: t}
	assert.False(t, AssertAppendOnly(f, request.Provider("vertex"), []byte(`{}`), []byte(`{}`)))
	assert.Contains(t, f.errs[0], "unknown provider")
	f = &fakeT{TB: t}
	assert.False(t, AssertAppendOnly(f, request.OpenAIChat, []byte(`{"model":"m"}`), []byte(`{"model":"m"}`)))
	assert.Contains(t, f.errs[0], "not a request body")
}

// A moved prefix breakpoint is not a moving part: only the last one after
// "messages" is dropped.
func TestAssertAppendOnlyPrefixBreakpoint(t *testing.T) {
	bodies := conversation(t, request.Anthropic)
	moved := bytes.Replace(bodies[1], []byte(`,"cache_control":{"type":"ephemeral"}`), nil, 1) // the first: in system or tools
	require.NotEqual(t, bodies[1], moved)
	f := &fakeT{TB: t}
	assert.False(t, AssertAppendOnly(f, request.Anthropic, bodies[0], moved))
	assert.NotEmpty(t, f.errs)
}

// TestAssertConversation: a conversation whose every body extends the one
// before it passes on every provider, across a view change (whose native
// narrowing rides after the messages); an edited earlier message, a
// dropped one and a changed tools[] are each reported as the first
// violation, with the body and the JSON path.
func TestAssertConversation(t *testing.T) {
	for _, p := range []request.Provider{request.OpenAIChat, request.OpenAIResponses, request.Anthropic, request.Gemini} {
		t.Run(string(p), func(t *testing.T) {
			bodies := conversation(t, p)
			assert.True(t, AssertConversation(t, p, bodies...))

			edited := bytes.Replace(bodies[3], []byte("It is package a."), []byte("It is package z."), 1)
			require.NotEqual(t, bodies[3], edited)
			f := &fakeT{TB: t}
			assert.False(t, AssertConversation(f, p, bodies[0], bodies[1], bodies[2], edited))
			require.Len(t, f.errs, 1)
			assert.Contains(t, f.errs[0], "body 3 does not extend body 2")
			assert.Regexp(t, `(messages|input|contents)\[\d+\]`, f.errs[0], "the JSON path of the first difference")

			dropped := bytes.Replace(bodies[2], []byte(`"package a"`), []byte(`"package"`), 1)
			f = &fakeT{TB: t}
			assert.False(t, AssertConversation(f, p, bodies[0], bodies[1], dropped, bodies[3]))
			assert.Contains(t, f.errs[0], "body 2 does not extend body 1")

			tools := bytes.Replace(bodies[2], []byte("Read a file."), []byte("Read a file!"), 1)
			f = &fakeT{TB: t}
			assert.False(t, AssertConversation(f, p, bodies[0], bodies[1], tools))
			assert.Contains(t, f.errs[0], "body 2")
			assert.Contains(t, f.errs[0], "tools")
		})
	}
}

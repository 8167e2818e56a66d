package wire

import (
	"bytes"
	"fmt"
)

// The byte-stability checks of request/requesttest, without a
// testing.TB: the kit reports what these return, and request's own
// in-package tests (which cannot import the kit, since it imports request)
// call them directly. One implementation for both.

// StablePrefix returns one problem per body whose prefix (see
// [PrefixLen]) differs from the first body's, or that is not a request
// body; none when every body shares the first one's prefix.
func StablePrefix(bodies ...[]byte) []string {
	if len(bodies) == 0 {
		return nil
	}
	n0 := PrefixLen(bodies[0])
	if n0 < 0 {
		return []string{"body 0 is not a request body (no messages, input or contents array)"}
	}
	var out []string
	for i, b := range bodies[1:] {
		n := PrefixLen(b)
		if n < 0 {
			out = append(out, fmt.Sprintf("body %d is not a request body (no messages, input or contents array)", i+1))
			continue
		}
		if d := Diff(bodies[0][:n0], b[:n]); d != nil {
			out = append(out, fmt.Sprintf("the prefix of body %d differs from body 0's: %s", i+1, d))
		}
	}
	return out
}

// anthropicBreakpoint is the cache_control member Anthropic requests carry
// on the last block of the latest turn.
const anthropicBreakpoint = `,"cache_control":{"type":"ephemeral"}`

// AppendOnly returns "" when next, the body of the turn after prev in the
// same session of provider p, only appends to prev, and else what is
// wrong (see requesttest.AssertAppendOnly for the moving parts each
// provider has).
func AppendOnly(p string, prev, next []byte) string {
	pv, n := prev, next
	switch p {
	case Anthropic:
		pv, n = dropLastBreakpoint(prev), dropLastBreakpoint(next)
	case OpenAIChat, OpenAIResponses, Gemini:
	default:
		return fmt.Sprintf("AssertAppendOnly: unknown provider %q (want %s, %s, %s or %s)", p, Anthropic, Gemini, OpenAIChat, OpenAIResponses)
	}
	if PrefixLen(prev) < 0 || PrefixLen(next) < 0 {
		return "AssertAppendOnly: a body is not a request body (no messages, input or contents array)"
	}
	head, ok := historyHead(pv)
	if !ok {
		return "AssertAppendOnly: the previous body does not end its messages array with \"]\""
	}
	if bytes.HasPrefix(n, head) {
		return ""
	}
	// Anthropic and Gemini merge a user-side message (a tool result, a
	// user message) into the user message before it: the next body
	// continues that message's content blocks (parts), after its last.
	if p == Anthropic || p == Gemini {
		if blocks, ok := bytes.CutSuffix(head, []byte("]}")); ok && bytes.HasPrefix(n, append(blocks[:len(blocks):len(blocks)], ',')) {
			return ""
		}
	}
	d := Diff(head, n[:min(len(head), len(n))])
	if d == nil { // next is shorter than prev: it dropped the end
		return fmt.Sprintf("the next body (%d bytes) is shorter than the previous one (%d bytes): it does not extend it", len(next), len(prev))
	}
	return fmt.Sprintf("the next body does not extend the previous one: %s", d)
}

// historyHead returns body up to the last message: without the "]" that
// closes its messages (input, contents) array and the members after it —
// "}", or a native narrowing of tools[] such as OpenAI's tool_choice or
// Gemini's toolConfig, which a view change moves (a moving part).
func historyHead(body []byte) ([]byte, bool) {
	end := -1
	eachMember(body, skipWS(body, 0), func(key string, _, v, e int) bool {
		if key == "messages" || key == "input" || key == "contents" {
			end = e
			return false
		}
		return true
	})
	if end < 1 || body[end-1] != ']' {
		return nil, false
	}
	return body[:end-1], true
}

// dropLastBreakpoint removes the last cache_control member after the
// messages key: Anthropic's latest-turn breakpoint.
func dropLastBreakpoint(b []byte) []byte {
	m := bytes.Index(b, []byte(`"messages":`))
	i := bytes.LastIndex(b, []byte(anthropicBreakpoint))
	if m < 0 || i < m {
		return b
	}
	out := make([]byte, 0, len(b)-len(anthropicBreakpoint))
	out = append(out, b[:i]...)
	return append(out, b[i+len(anthropicBreakpoint):]...)
}

// Conversation returns "" when every body of bodies, the request bodies of
// one conversation of provider p in order, extends the one before it with
// the prefix unchanged, and else the first violation: which body, and the
// first differing byte with its JSON path.
func Conversation(p string, bodies ...[]byte) string {
	for i := 1; i < len(bodies); i++ {
		a, b := PrefixLen(bodies[i-1]), PrefixLen(bodies[i])
		if a < 0 || b < 0 {
			return fmt.Sprintf("body %d or %d is not a request body (no messages, input or contents array)", i-1, i)
		}
		if d := Diff(bodies[i-1][:a], bodies[i][:b]); d != nil {
			return fmt.Sprintf("body %d changes the prefix (system, tools) of body %d: %s", i, i-1, d)
		}
		if msg := AppendOnly(p, bodies[i-1], bodies[i]); msg != "" {
			return fmt.Sprintf("body %d does not extend body %d: %s", i, i-1, msg)
		}
	}
	return ""
}

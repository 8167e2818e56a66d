package replytest

import "github.com/toolshelf/toolshelf/request"

// Simulate returns usage figures for a reply to body, the request that
// follows prev in a session (nil for the first), with count counting the
// tokens of a text. They imitate a provider, they are not one:
//
//   - input: count(body);
//   - cache read: the tokens of the bytes body shares with prev — on
//     OpenAI only from 1,024 tokens on, in steps of 128, as OpenAI's
//     prompt cache works;
//   - cache write: on Anthropic, the rest of the input (its breakpoint is
//     on the last block, so everything before it is written); none on
//     OpenAI, which does not report writes;
//   - output: count(output), the reply's content.
func Simulate(p request.Provider, count func(string) int, prev, body []byte, output string) request.Usage {
	u := request.Usage{InputTokens: count(string(body)), OutputTokens: count(output)}
	if prev == nil {
		if p == request.Anthropic {
			u.CacheWriteTokens = u.InputTokens
		}
		return u
	}
	shared := 0
	for shared < len(prev) && shared < len(body) && prev[shared] == body[shared] {
		shared++
	}
	read := count(string(body[:shared]))
	switch p {
	case request.Anthropic:
		u.CacheReadTokens = read
		u.CacheWriteTokens = u.InputTokens - read
	default:
		if read >= 1024 {
			u.CacheReadTokens = read / 128 * 128
		}
	}
	return u
}

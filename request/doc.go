// Package request owns sessions and BuildRequest: the per-turn request body
// for OpenAI Chat Completions, OpenAI Responses and Anthropic Messages, built
// from a frozen, byte-stable prefix (system + tools) and the messages.
//
// It never re-encodes the frozen prefix on a turn.
package request

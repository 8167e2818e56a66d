package request

import (
	"encoding/json"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Provider names a request encoder.
type Provider string

// The three encoders.
const (
	// OpenAIChat is OpenAI Chat Completions: messages with the system
	// message first, tools as {"type":"function","function":{...}}.
	OpenAIChat Provider = "openai-chat"
	// OpenAIResponses is the OpenAI Responses API: instructions, input
	// items (function_call, function_call_output), flat function tools.
	OpenAIResponses Provider = "openai-responses"
	// Anthropic is Anthropic Messages: a system array of text blocks,
	// tools with input_schema, tool_use and tool_result blocks, and
	// cache_control breakpoints.
	Anthropic Provider = "anthropic"
)

// Config is what a session is created from. Everything that shapes the
// prefix (snapshot content, policy, view, variables, provider, model,
// system, extra fields) is part of the key under which sessions share one
// frozen prefix in a [Cache].
type Config struct {
	// ID identifies the session for the dispatcher, hooks and logs.
	ID string
	// Snapshot is the registry snapshot the session is frozen on. Later
	// registry changes (a reconnect, a new server) reach new sessions only.
	Snapshot *registry.Snapshot
	// Policy decides resident and deferred tools. Nil means the zero policy.
	Policy *deferral.Policy
	// View is the session's mode, tier and elevation.
	View deferral.View
	// Vars are the session variables templates may read (cwd, os, locale,
	// date ...), declared once at creation. "index" is reserved: it holds
	// the tool_search name index.
	Vars map[string]string
	// Static are static template variables from the harness.
	Static map[string]string
	// Provider selects the encoder.
	Provider Provider
	// Model is the provider's model name. Required.
	Model string
	// System is the one fixed instruction, emitted first.
	System string
	// SystemItems are further system texts (skills, for instance),
	// emitted after System in sorted order, whatever order they come in.
	SystemItems []string
	// Extra are caller-supplied top-level fields (max_tokens, stream,
	// temperature ...), raw JSON values emitted sorted by key after "model".
	Extra map[string]json.RawMessage
	// Search configures the tool_search engine. Nil means defaults.
	Search *search.Options
	// Dispatcher runs every tool call other than tool_search. Nil means
	// calls answer with an error result.
	Dispatcher *execute.Dispatcher
	// Pending names MCP servers still connecting, for tool_search misses.
	Pending []string
	// Limits bound self-built tools (see [registry.Options]). Nil means
	// the registry's defaults.
	Limits *registry.Options
	// Cache shares frozen prefixes and searchers between sessions with the
	// same inputs. Nil gives the session a private copy.
	Cache *Cache
}

// reservedExtra are top-level fields the encoders write themselves.
func reservedExtra(key string) bool {
	switch key {
	case "model", "messages", "tools", "system", "instructions", "input":
		return true
	}
	return false
}

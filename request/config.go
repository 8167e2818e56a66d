package request

import (
	"encoding/json"
	"fmt"
	"time"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/wire"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/search"
)

// Provider names a request encoder: one of the four constants below.
// The provider rule book and registry's catalog formats use the same
// names.
type Provider string

// The four encoders.
const (
	// OpenAIChat is OpenAI Chat Completions: messages with the system
	// message first, tools as {"type":"function","function":{...}}.
	OpenAIChat Provider = wire.OpenAIChat
	// OpenAIResponses is the OpenAI Responses API: instructions, input
	// items (function_call, function_call_output), flat function tools.
	OpenAIResponses Provider = wire.OpenAIResponses
	// Anthropic is Anthropic Messages: a system array of text blocks,
	// tools with input_schema, tool_use and tool_result blocks, and
	// cache_control breakpoints.
	Anthropic Provider = wire.Anthropic
	// Gemini is the Gemini API's generateContent and
	// streamGenerateContent (Google AI and Vertex AI): systemInstruction,
	// tools[].functionDeclarations with parametersJsonSchema, contents of
	// roles user and model with functionCall and functionResponse parts.
	// The model goes in the URL, not the body.
	Gemini Provider = wire.Gemini
)

// Config is what a session is created from. Everything that shapes the
// prefix (snapshot content, policy, view, variables, provider, model,
// system, extra fields) is part of the key under which sessions share one
// frozen prefix in a [Cache].
type Config struct {
	// ID identifies the session for the dispatcher, hooks and logs.
	ID string
	// Snapshot is the registry snapshot the session's prefix is frozen
	// on. Later registry changes (a late server, a reconnect with other
	// tools) reach the session through [Session.Sync], which keeps the
	// prefix as it is.
	Snapshot *registry.Snapshot
	// Policy decides resident and deferred tools. Nil means the zero policy.
	Policy *deferral.Policy
	// View is the session's mode, tier and elevation. It is the authority
	// on every [RestoreSession] and [OpenConversation] too: stored state
	// that would show more is refused (see [RestoreSession]).
	View deferral.View
	// RestoreElevation lets a restored session keep an elevation its
	// stored state records (granted with [Session.SetView] before it was
	// saved or committed). Off, the default, a restored session is elevated only
	// if View says so: an elevation is the harness's grant to one
	// session, and a store is not where the harness decides.
	RestoreElevation bool
	// SessionVars are the session variables templates may read (cwd, os, locale,
	// date ...), declared once at creation. "index" is reserved: it holds
	// the tool_search name index.
	SessionVars map[string]string
	// StaticVars are static template variables from the harness.
	StaticVars map[string]string
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
	// Anthropic requires "max_tokens": NewSession refuses an Anthropic
	// session without it.
	Extra map[string]json.RawMessage
	// Search configures the tool_search engine. Nil means defaults.
	Search *search.Options
	// Dispatcher runs every tool call, tool_search included (its rules,
	// hooks and events). Nil means calls
	// answer with an error result and tool_search runs unguarded. Its
	// rules shape the prefix: a tool whose every call they deny is left
	// out of tools[], the index and
	// search results, as a hidden tool is.
	Dispatcher *execute.Dispatcher
	// Pending names MCP servers still connecting, for tool_search misses.
	Pending []string
	// Limits bound self-built tools (see [registry.Options]). Nil means
	// the registry's defaults.
	Limits *registry.Options
	// Cache shares frozen prefixes and searchers between sessions with the
	// same inputs. Nil gives the session a private copy.
	Cache *Cache
	// ToolSearch chooses who searches the deferred tools: the portable
	// tool_search and defer_execute ([Portable], the zero value) or the
	// provider's own search ([Native], [NativeRegex]), or toolshelf's search
	// answering in the provider's reference form ([Client]). See [ToolSearch].
	ToolSearch ToolSearch
	// SelfBuilt prepares the session for tools the model writes at run
	// time: tool_search and defer_execute are in tools[] from the first
	// turn even when nothing else is deferred, since adding them later
	// would change the prefix. Without it, RegisterSelfBuilt on a session
	// that deferred nothing is an error (the model could never load or
	// call the tool).
	SelfBuilt bool
	// Strict asks the OpenAI encoders for strict function calling: a tool
	// whose schema is strict-compatible as it stands (an object root, every
	// object closed with "additionalProperties": false and every property
	// required, only the keywords strict mode supports) is sent with
	// "strict": true. Every other tool — tool_search and defer_execute
	// among them, whose parameters are optional — is sent with
	// "strict": false on the Responses API (where an absent strict means
	// strict) and without strict on Chat Completions. Anthropic ignores it.
	Strict bool
	// Diagnostics asks the provider to explain the session's cache misses:
	// each request names the previous reply (the last assistant message's
	// [Message.ReplyID] the harness passed back) — Anthropic's
	// diagnostics.previous_message_id (null on the first turn), the
	// Responses API's prompt_cache_options.comparison_response_id (from
	// the second turn) — and the reply's [Usage.Diagnosis] carries the
	// provider's answer. The fields go after the messages, so the prefix
	// is the same with or without them. Chat Completions and Gemini have
	// no such fields: NewSession refuses it there (the session's
	// [ChangeLog] explains their misses). Off, the body is unchanged.
	Diagnostics bool
	// Clock tells the time of each request for the change log (the time
	// between requests explains a cache entry that expired). Nil means
	// time.Now; tests set their own.
	Clock func() time.Time
	// AcceptChanges makes [Session.Sync] take a changed deferred tool's new
	// definition as is (announced; the next load returns it). Without it
	// (the default) a changed tool is pinned to the definition the session
	// shows until the harness approves the change.
	AcceptChanges bool
	// DropMessages makes the session keep only the encoded history it
	// must resend, not the neutral form of the conversation: for a
	// harness that stores the conversation itself. The session then holds
	// about 1.1× its encoded history instead of 2× (see
	// docs/performance.md); request bodies are unchanged, byte for byte.
	// [Session.Messages] returns nil, [Session.MarshalState] saves the
	// encoded history instead of the messages, and [RestoreSession]
	// rebuilds an identical session from it (with the same Provider).
	// [OpenConversation] refuses it: a Conversation stores the messages.
	DropMessages bool
	// NativeToolChanges sends the live set's changes — tools that arrive
	// through [Session.Sync] (a late server, a reconnect), come back or
	// are updated, self-built tools, and tools that leave — in the
	// provider's native form as well as in the announcement, on Anthropic
	// (a {"role":"system"} message of tool_addition blocks that carry the
	// definition and tool_removal blocks) and OpenAI Responses (an
	// additional_tools input item, role developer): the model then calls
	// such a tool directly by its name, and the dispatcher governs the
	// call as it governs defer_execute's. The native parts ride on the
	// user message that carries the announcements ([Message.Native]).
	// Anthropic needs the betas [Session.NativeBetas] returns. Off, and
	// on the other providers, the announcement and defer_execute are the
	// only path.
	NativeToolChanges bool
	// Preload attaches the schemas of the deferred tools a user message is
	// sure to need to the request that carries it, so that the model calls
	// without a tool_search turn (issue 38). On each turn with a user
	// message the session runs tool_search's own search on its text;
	// where the message names one or two deferred tools, or the answer is
	// "found" with one clear tool (or two close siblings), their schemas
	// go in a <preloaded_tools> block at the front of that message — never
	// in the prefix — and join the loaded set. Only tools the session's
	// view shows are preloaded (a hidden or denied tool never is), at most
	// two and 4,000 characters of schema (as the model reads it) per
	// message. A preload loads schemas as tool_search does, so it answers
	// to the dispatcher's guard on tool_search: Deny(tool_search) or a
	// hook that blocks tool_search stops it, and it raises a "searched"
	// event whose Detail starts with "preload" (docs/governance.md). Its
	// search runs under the build's context
	// ([Session.AppendRequestContext]). The block is part of the message,
	// so a restored session sends the same bytes. Portable tool search
	// only: other modes ignore it. docs/search-quality.md ("Preload when
	// sure") has its precision and how often it fires.
	Preload bool
}

// ToolSearch selects how deferred tools reach the model. The registry,
// the policy, the dispatcher's validation, permission rules and hooks are
// the same in every mode; only the shape of tools[] and the way a tool is
// called differ.
type ToolSearch string

// The tool search modes.
const (
	// Portable is the default (the zero value "" means Portable too):
	// deferred tools' schemas are absent from tools[], their names are in
	// tool_search's index, and the model calls them through defer_execute.
	// It works on every provider.
	Portable ToolSearch = "portable"
	// Native lets the provider search: every deferred tool is sent in
	// tools[] with its schema and "defer_loading": true, next to the
	// provider's search tool — Anthropic's BM25 tool search
	// ({"type":"tool_search_tool_bm25_20251119"}) or the Responses API's
	// hosted {"type":"tool_search"}. The model calls a found tool by its
	// own name (a direct call through the same dispatcher). There is no
	// tool_search index, no defer_execute, and no self-built tools (the
	// provider searches only tools[], which is frozen). OpenAI Chat
	// Completions has no native search: NewSession rejects it.
	Native ToolSearch = "native"
	// NativeRegex is [Native] with Anthropic's regex variant
	// ({"type":"tool_search_tool_regex_20251119"}). Anthropic only.
	NativeRegex ToolSearch = "native-regex"
	// Client lets the provider load schemas while toolshelf searches:
	// every deferred tool is sent in tools[] with its schema and
	// "defer_loading": true, and toolshelf's tool_search (the same index,
	// ranking, exact names, "select:", limits and ladder as [Portable])
	// answers in the provider's reference form — Anthropic: a tool_result
	// of tool_reference blocks; the Responses API: a client-executed
	// {"type":"tool_search","execution":"client"} answered by a
	// tool_search_output item carrying the found tools. The model then
	// calls a found tool by its own name, through the same dispatcher.
	// Build the answer with [Session.Answer]. A self-built tool, which
	// arrives after tools[] froze, takes the portable path
	// (defer_execute) in the same session. OpenAI Chat Completions has no
	// reference form: NewSession rejects it.
	Client ToolSearch = "client"
)

// native reports whether m is a provider-side search mode.
func (m ToolSearch) native() bool { return m == Native || m == NativeRegex }

// checkToolSearch validates the mode for the provider, a known one: a
// native mode needs the provider's own search tool for it.
func checkToolSearch(m ToolSearch, p Provider) error {
	enc, _ := encoderFor(p)
	switch m {
	case "", Portable:
		return nil
	case Native:
		if enc.traits().searchTool(Native) == "" {
			return fmt.Errorf("%w: Config.ToolSearch %q: provider %q has no native tool search; use Portable (tool_search and defer_execute work on every provider) or the %q provider", ErrConfig, m, p, OpenAIResponses)
		}
		return nil
	case Client:
		if !enc.traits().clientSearch {
			return fmt.Errorf("%w: Config.ToolSearch %q: provider %q has no reference form for client-executed search; use Portable (tool_search and defer_execute work on every provider), or the %q or %q provider", ErrConfig, m, p, Anthropic, OpenAIResponses)
		}
		return nil
	case NativeRegex:
		if enc.traits().searchTool(NativeRegex) == "" {
			return fmt.Errorf("%w: Config.ToolSearch %q: the regex tool search is Anthropic's; provider %q: use %q or Portable", ErrConfig, m, p, Native)
		}
		return nil
	}
	return fmt.Errorf("%w: Config.ToolSearch %q: want %q, %q, %q or %q", ErrConfig, m, Portable, Native, NativeRegex, Client)
}

// reservedExtra are top-level fields the encoders write themselves.
func reservedExtra(key string) bool {
	switch key {
	case "model", "messages", "tools", "system", "instructions", "input", "contents", "systemInstruction", "system_instruction":
		return true
	}
	return false
}

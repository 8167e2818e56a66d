// Package request owns sessions and BuildRequest: the per-turn request body
// for OpenAI Chat Completions, OpenAI Responses and Anthropic Messages, built
// from a frozen, byte-stable prefix (system + tools) and the messages.
//
// The loop: [NewSession] with a [Config]; each turn [Session.BuildRequest]
// (or [Session.AppendRequest] into a reused buffer) with a [Turn] of
// [Message]s; [DecodeReply] or [DecodeStream] turn the provider's answer
// into a [Reply]; [Session.Call] or [Session.Answer] runs each [ToolCall];
// the reply and the results are the next Turn. Everything else is what a
// harness reads or decides along the way: [Session.Plan], [Session.Lookup]
// and [Session.LoadedNames] (what the session sees and has loaded),
// [Session.Sync] and [Session.PendingChanges] (a live tool set), and, to
// serve a conversation from several processes, a [Store] the harness backs
// with its database, opened with [OpenConversation].
//
// Deferred tools reach the model in one of three ways ([Config.ToolSearch]):
// the portable tool_search (a name index) and defer_execute, on every
// provider; the provider's own search ([Native]: deferred tools sent
// with "defer_loading": true next to Anthropic's or the Responses API's
// search tool, called by their own names); or toolshelf's search answering
// in the provider's reference form while the provider loads the schemas
// ([Client], answered by [Session.Answer]). All keep the prefix fixed, and
// every call goes through the same dispatcher.
//
// Text from outside is never trusted: a user's text is sent inside
// <user_query>…</user_query> with every wrapper tag in it neutralized
// ("&lt;/user_query>"), and announcements of self-built tools and of
// changed MCP tools carry sanitized, bounded text, appended to the
// conversation, never to the prefix.
//
// A session follows its registry with [Session.Sync]: tools that arrive
// (a late MCP server) join it deferred and callable at once, tools that
// leave answer as removed, tools that change are pinned to the definition
// the session showed until the harness approves ([Session.PendingChanges],
// [Session.ApproveChange]). None of it moves the prefix.
//
// Append-only: what a conversation sent is never edited. [Session.SetView]
// (a mode, tier or elevation change) keeps system and tools[] byte for
// byte; the change is told at the end of the next request and enforced by
// the dispatcher, with OpenAI's allowed_tools or Gemini's
// allowedFunctionNames narrowing tools[] natively. A session's state
// carries the digest chain of what it sent, so a restored session (another
// replica too) refuses a body that would edit or drop something sent with
// an error wrapping [ErrEdited], naming the first differing part, until the
// harness declares the change with [Session.DeclareRewrite] (a compaction, a
// new system prompt). Thinking blocks, reasoning items and signatures are
// sent back byte for byte.
//
// Every body follows the providers' rule book (docs/providers.md, checked by
// requesttest.CheckProviderRules): where OpenAI caps a tool description
// at 1,024 characters, the name index rides in the system instructions
// and longer descriptions are cut at a sentence; empty failed results and
// whitespace-only text are sent as fixed placeholders; a configuration or
// a conversation the provider would refuse (Anthropic without max_tokens,
// calls left unanswered) is an error before any bytes are built.
//
// The other half of the loop: [DecodeReply] (a whole response body) and
// [DecodeStream] or [Stream] (server-sent events) turn a provider's reply
// into the [Message] the next turn sends back — text, tool calls, native
// parts verbatim — with the stop reason, the provider's response id
// ([Reply.ID]) and the [Usage] (cache reads and writes included, and the
// provider's [CacheDiagnosis] when [Config.Diagnostics] asked for one)
// that budget.Ledger records. The session's [ChangeLog] — view changes,
// arrivals, updates and removals, what the harness declares
// ([Session.Declare]), and when each request was built — is what a
// ledger explains a cache miss with.
//
// Memory: sessions with equal inputs share one frozen prefix and searcher
// through a [Cache] (search options compared by value). A session holds its
// encoded history, which it must resend, and by default the neutral
// messages too, for [Session.Messages] and [Session.MarshalState]; a harness
// that stores the conversation itself sets [Config.DropMessages], and the
// session then holds about 1.1× its encoded history. [Session.AppendRequest]
// into a reused buffer builds a steady turn without allocating.
//
// It never re-encodes the frozen prefix on a turn.
//
// API beyond the loop: [Session.Plan] is the deferral plan the prefix was
// built on, for accounting and explanations; package budget, above this
// one, measures a session (budget.Sections). [OpenConversation] with a
// [Store] (request/storetest checks one and holds an in-memory reference)
// serves a conversation from several replicas; [Session.MarshalState] and
// [RestoreSession] move one. Stored state is data: the [Config] decides
// what a restored session sees, and everything read back is checked as if
// new. [EntryDefinitions] gives tool_search and defer_execute as sessions
// send them, for accounting without a session. Every sentinel error's
// message starts with "request:". The methods execute's dispatcher needs
// ([execute.Session]: ID, Loaded, MarkLoaded, VisibleNames, Removed) are on
// an unexported adapter, not on Session; the provider rule book is
// docs/providers.md. Every load of a schema — tool_search, Client mode's
// search, a preload, a restored loaded set — passes the dispatcher's
// guard on tool_search (its rules, hooks and "searched" event) before it
// joins the loaded set (docs/governance.md).
package request

// Package execute owns the defer_execute tool and the one [Dispatcher] every
// tool call goes through, direct or deferred. Deferral shortens the context;
// it must not shorten the chain of checks, so a call of a resident tool and a
// call that arrives as defer_execute {"tool_name": ..., "params": ...} take
// the same steps:
//
//  1. permission by name: a Deny rule matching the name denies the call
//     before anything about the tool is looked up;
//  2. lookup and visibility: an unknown or hidden name gets the same
//     "unknown tool" answer, with the closest visible names;
//  3. permission by tool: rules by annotation (Deny(@destructive)) and a
//     Deny default;
//  4. loaded?: a deferred tool whose schema the model has not loaded gets
//     its schema back in a validation error and counts as loaded from then on
//     (unless the rules deny tool_search, which would have loaded it);
//  5. schema validation of params, parsed once (duplicate keys refused,
//     integers exact) and checked against schemas resolved once and cached
//     (defaults applied), every violation listed with its JSON pointer;
//     injected fields filled by the host, whatever the model wrote for them;
//  6. permission rules that allow or ask (deny over ask over allow);
//  7. before-call hooks (continue, block, rewrite), the handler on its own
//     goroutine with the caller's context and [Options.CallTimeout], after-call
//     hooks (annotate, replace);
//  8. the result made valid UTF-8, its wrapper tags neutralised, bounded in
//     size and completed with per-tool guidance.
//
// tool_search goes through the same guards: its
// permission rules, its hooks and an event with its queries and the names
// it loaded. Rules and hook patterns select tools by name or by MCP
// annotation (@readonly, @destructive, @idempotent, @openworld), trusted
// only from the harness's own tools and servers it vouches for; a tool
// whose every call is denied is left out of what the model sees by
// package request.
//
// Every guard — rules, hooks, events, logs — sees the target tool's name,
// never the wrapper's: a Deny(ImageGen) rule blocks
// defer_execute {"tool_name":"ImageGen"} exactly as it blocks a direct call.
//
// Everything the model sends is untrusted. Bad input gets a model-facing
// error result that says what a correct call looks like; a call never
// panics and never returns a Go error that would end the turn. Every
// decision is reported as an [Event] to the one [Observer] the harness
// configured (a callback with [OnEvent], log/slog with [LogEvents], a
// tracer, or several with [MultiObserver]); the values of injected fields
// never appear in a message, an event or a log line.
//
// API: [New] with [Options] ([Permission]s from [ParsePermission] or
// [MustPermissions], an [Approver], [Hook]s, bounds and an [Observer])
// gives a [Dispatcher]; the harness puts it in
// request.Config, and the session runs each tool call through it
// (request.Session.Call). Hooks and handlers get a [Call] — the session's
// ID and the call's facts, read-only — and a handler finds its own with
// [CallFromContext]; [WithCallID] carries the provider's call ID to them.
// New reports an error (message prefix "execute: invalid permission
// rule") for a rule or hook pattern that does not parse.
package execute

// Package otel turns toolshelf's dispatcher into OpenTelemetry spans and
// metrics. Core toolshelf has no OpenTelemetry dependency; this package,
// in the integration module, implements [execute.Observer] with the
// OpenTelemetry API, so one option — execute.Options{Observer: obs} —
// traces every tool call and every tool_search:
//
//   - a span per dispatch, "execute_tool <tool>" for a call and
//     "tool_search" for a search, with the GenAI semantic conventions'
//     attributes: gen_ai.operation.name = "execute_tool", gen_ai.tool.name
//     (the target's name, also for defer_execute calls), gen_ai.tool.call.id
//     (from execute.WithCallID), gen_ai.conversation.id (the session's ID),
//     error.type on a failed dispatch, and toolshelf's own attributes:
//     toolshelf.via ("defer_execute" for a call through the wrapper),
//     toolshelf.rule (the permission rule that decided the call),
//     toolshelf.outcome (the dispatch's last decision: completed,
//     denied ...), and on a search toolshelf.search.queries and
//     toolshelf.search.loaded (string slices);
//   - each decision of the dispatcher (allowed, denied, blocked, ...) as a
//     span event;
//   - a "load_tool <tool>" child span for each schema the model loaded: by
//     a search, or by calling a deferred tool before loading it
//     (toolshelf.loaded_by = "tool_search" or "call_before_load");
//   - metrics: toolshelf.tool.calls and toolshelf.tool.denials (counters by
//     tool and outcome), toolshelf.tool_search.duration (a histogram, in
//     seconds), gen_ai.client.token.usage and toolshelf.cache.hit_ratio
//     from the usage ledger's lines ([Observer.RecordTurn]);
//   - on the harness's span of a request that missed the provider's cache
//     (a line of a ledger made by budget.FollowSession, given to
//     [Observer.RecordTurn] with the span's context):
//     toolshelf.cache.miss.cause, toolshelf.cache.miss.tokens,
//     toolshelf.cache.miss.provider_reason, toolshelf.cache.miss.text and
//     a "cache_miss" span event.
//
// The spans and metrics carry the instrumentation scope
// "github.com/toolshelf/toolshelf/integration/otel".
//
// Spans start from the caller's context: a harness that traces its agent
// loop sees tool calls nested under its own spans.
package otel

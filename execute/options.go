package execute

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolshelf/toolshelf/registry"
)

// Default bounds, stated on the [Options] fields they fill. Params are
// bounded before they are parsed; results after the handler returns.
const (
	defaultMaxParamsBytes = 1 << 20
	defaultMaxDepth       = 32
	defaultMaxResultBytes = 100_000
	defaultMaxSchemas     = 4096
	defaultCallTimeout    = 5 * time.Minute
)

// Options configures a [Dispatcher]. Nil (or the zero value) means: allow
// every call no rule decides, no approver (so Ask rules reject), no hooks,
// default bounds, no observer.
type Options struct {
	// Permissions are permission rules, evaluated on the target tool's name; the
	// strongest matching action wins (deny over ask over allow).
	Permissions []Permission
	// Default is the action when no rule matches. Zero means [Allow], the
	// usual harness default: modes and rules restrict, the default does not.
	Default Action
	// Ask decides calls an Ask rule (or an Ask default) matched. Nil
	// rejects them: without an approver nobody can say yes.
	Ask Approver
	// Inject returns the values of a tool's injected fields
	// ([registry.Tool.Injected]) for one call of tool in the session whose
	// ID is session. It is called only for tools that declare injected
	// fields; a value the model sent for such a field is dropped first.
	// Keys that are not injected fields are ignored.
	Inject func(ctx context.Context, session, tool string) (map[string]any, error)
	// Hooks run in order around the handler, for the tools their pattern
	// matches.
	Hooks []Hook
	// Guidance maps a tool name to advice appended to each of its results
	// ("results are paged: pass cursor to continue"). It always reaches the
	// model, after any truncation.
	Guidance map[string]string
	// MaxParamsBytes bounds the raw arguments of one call; 0 means 1 MiB
	// (1,048,576 bytes).
	MaxParamsBytes int
	// MaxDepth bounds the nesting of the arguments' JSON (objects and
	// arrays); 0 means 32. No tool in testdata nests past 6.
	MaxDepth int
	// MaxResultBytes bounds the text of a result; 0 means 100,000 bytes
	// (about 25,000 tokens at 4 chars/token), negative means no bound.
	// Longer text is cut at a rune boundary.
	MaxResultBytes int
	// MaxSchemas bounds the validation cache; 0 means 4,096 schemas. Past
	// it the cache is emptied and refilled on demand.
	MaxSchemas int
	// CallTimeout bounds how long a call waits for its handler; 0 means 5
	// minutes — long enough for a build or a slow MCP server, short enough
	// that a handler which ignores its context cannot hold a conversation
	// forever — and negative means no bound of the dispatcher's
	// own (the caller's context still applies). The handler runs on its
	// own goroutine; its context ends at the deadline (with a cause
	// wrapping context.DeadlineExceeded), and a handler that returns
	// within 100 ms after that still has its result used. Otherwise the call
	// answers a timeout result without waiting further. A handler that
	// ignores its context keeps running in its goroutine until it
	// returns: stopping it, and whatever it does after the deadline, is
	// the handler's responsibility. Its late result is discarded.
	CallTimeout time.Duration
	// Observer receives every decision, and sees each dispatch as a whole
	// with its context: the one sink for events, logs and traces
	// ([OnEvent] adapts a callback, [LogEvents] a *slog.Logger,
	// [MultiObserver] combines them). Nil observes nothing.
	Observer Observer
}

// Call describes one call to hooks, after validation, injection and
// permission.
type Call struct {
	// Session is the calling session's ID (request.Config.ID). A hook
	// reads the session; it does not steer it: what the model has loaded
	// is request.Session.LoadedNames's to answer.
	Session string
	// Tool is the target tool.
	Tool *registry.Tool
	// Name is the target tool's name (never "defer_execute").
	Name string
	// Via is "defer_execute" when the call came through the wrapper.
	Via string
	// ID is the provider's ID of the call (tool_use id, call_id), when the
	// harness passed it with [WithCallID]; "" otherwise.
	ID string
	// Params are the validated params: defaults applied, injected fields
	// filled. A hook may return new params in its [Verdict].
	Params json.RawMessage
}

// Verdict is a before-call hook's answer. The zero Verdict continues.
type Verdict struct {
	// Block refuses the call; Reason is shown to the model.
	Block  bool
	Reason string
	// Params, when non-nil, replace the call's params. They are validated
	// again against the tool's full schema; invalid params stop the call.
	Params json.RawMessage
}

// Hook runs around the handler of every tool its Pattern matches.
type Hook struct {
	// Name identifies the hook in events and logs.
	Name string
	// Pattern selects tools by target name, with * wildcards; empty means all.
	Pattern string
	// Before runs after permission, before the handler. Nil continues.
	Before func(ctx context.Context, c *Call) Verdict
	// After runs after the handler and may annotate or replace its result.
	// Nil keeps the result.
	After func(ctx context.Context, c *Call, r registry.Result) registry.Result
}

// Options returns the options d was made with, after New's defaults. Its
// slices are d's own: read them, never modify them. A session reads the
// permission rules and hook patterns to report those that select no tool
// (request.Session.RuleWarnings), and reports to [Options.Observer] the
// events that no call makes ("tool_changed", "rule_unmatched"), so that the
// harness audits them with the dispatcher's own decisions.
func (d *Dispatcher) Options() Options { return d.opts }

package otel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	global "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// scopeName is the instrumentation scope of the spans and metrics.
const scopeName = "github.com/toolshelf/toolshelf/integration/otel"

// Attribute keys of our own, next to the semantic conventions' ones; the
// package doc lists their values for a harness that queries spans.
const (
	// viaKey is "defer_execute" for a call that came through the wrapper.
	viaKey = attribute.Key("toolshelf.via")
	// ruleKey is the permission rule that decided a call.
	ruleKey = attribute.Key("toolshelf.rule")
	// outcomeKey is the dispatch's last decision (completed, denied ...).
	outcomeKey = attribute.Key("toolshelf.outcome")
	// queriesKey and loadedKey are a search's queries and loaded names.
	queriesKey = attribute.Key("toolshelf.search.queries")
	loadedKey  = attribute.Key("toolshelf.search.loaded")
	// The cache miss of a request (budget.CacheMiss), on the span of the
	// request in RecordTurn's context.
	missCauseKey    = attribute.Key("toolshelf.cache.miss.cause")
	missTokensKey   = attribute.Key("toolshelf.cache.miss.tokens")
	missProviderKey = attribute.Key("toolshelf.cache.miss.provider_reason")
	missTextKey     = attribute.Key("toolshelf.cache.miss.text")
)

// Options configures an [Observer]. Nil means the global providers.
type Options struct {
	// TracerProvider makes the spans; nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics; nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
}

// Observer is an [execute.Observer] that records OpenTelemetry spans and
// metrics. It is safe for concurrent use.
type Observer struct {
	tracer   trace.Tracer
	calls    metric.Int64Counter
	denials  metric.Int64Counter
	searchD  metric.Float64Histogram
	tokens   metric.Int64Histogram
	input    atomic.Int64
	cacheHit atomic.Int64
}

var _ execute.Observer = (*Observer)(nil)

// New returns an observer. It reports an error when an instrument cannot
// be created.
func New(o *Options) (*Observer, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.TracerProvider == nil {
		opts.TracerProvider = global.GetTracerProvider()
	}
	if opts.MeterProvider == nil {
		opts.MeterProvider = global.GetMeterProvider()
	}
	m := opts.MeterProvider.Meter(scopeName)
	ob := &Observer{tracer: opts.TracerProvider.Tracer(scopeName)}
	var errs []error
	var err error
	ob.calls, err = m.Int64Counter("toolshelf.tool.calls", metric.WithUnit("{call}"), metric.WithDescription("Tool calls and searches dispatched, by tool and outcome."))
	errs = append(errs, err)
	ob.denials, err = m.Int64Counter("toolshelf.tool.denials", metric.WithUnit("{call}"), metric.WithDescription("Calls refused by a permission rule, the approver or a hook, by tool and decision."))
	errs = append(errs, err)
	ob.searchD, err = m.Float64Histogram("toolshelf.tool_search.duration", metric.WithUnit("s"), metric.WithDescription("Time a tool_search call took, guards included."))
	errs = append(errs, err)
	ob.tokens, err = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"), metric.WithDescription("Tokens a request used, as the provider counted them."))
	errs = append(errs, err)
	_, err = m.Float64ObservableGauge("toolshelf.cache.hit_ratio", metric.WithUnit("1"),
		metric.WithDescription("Share of input tokens read from the provider's prompt cache, over the turns recorded."),
		metric.WithFloat64Callback(func(_ context.Context, fo metric.Float64Observer) error {
			if in := ob.input.Load(); in > 0 {
				fo.Observe(float64(ob.cacheHit.Load()) / float64(in))
			}
			return nil
		}))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("otel: %w", err)
	}
	return ob, nil
}

// dispatch is the state of one observed dispatch, carried in its context.
type dispatch struct {
	span    trace.Span
	start   time.Time
	search  bool
	tool    string
	outcome execute.EventKind
	denied  execute.EventKind
}

type dispatchKey struct{}

// Begin starts the dispatch's span.
func (o *Observer) Begin(ctx context.Context, d execute.Dispatch) context.Context {
	st := &dispatch{start: time.Now(), search: d.Name == registry.ToolSearchName, tool: d.Name}
	name := "execute_tool " + d.Name
	if st.search {
		name = registry.ToolSearchName
	}
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(d.Name)}
	if d.Session != "" {
		attrs = append(attrs, semconv.GenAIConversationID(d.Session))
	}
	if d.CallID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(d.CallID))
	}
	ctx, st.span = o.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return context.WithValue(ctx, dispatchKey{}, st)
}

// Event records one decision on the dispatch's span.
func (o *Observer) Event(ctx context.Context, ev execute.Event) {
	st, _ := ctx.Value(dispatchKey{}).(*dispatch)
	if st == nil {
		return
	}
	if ev.Tool != "" && ev.Tool != st.tool && !st.search {
		// defer_execute: the target is known once the wrapper is read.
		st.tool = ev.Tool
		st.span.SetName("execute_tool " + ev.Tool)
		st.span.SetAttributes(semconv.GenAIToolName(ev.Tool))
	}
	if ev.Via != "" {
		st.span.SetAttributes(viaKey.String(ev.Via))
	}
	attrs := []attribute.KeyValue{}
	if ev.Rule != "" {
		attrs = append(attrs, ruleKey.String(ev.Rule))
		st.span.SetAttributes(ruleKey.String(ev.Rule))
	}
	if ev.Hook != "" {
		attrs = append(attrs, attribute.String("toolshelf.hook", ev.Hook))
	}
	if ev.Pointer != "" {
		attrs = append(attrs, attribute.String("toolshelf.pointer", ev.Pointer))
	}
	if ev.Detail != "" {
		attrs = append(attrs, attribute.String("toolshelf.detail", ev.Detail))
	}
	st.span.AddEvent(string(ev.Kind), trace.WithAttributes(attrs...))
	st.outcome = ev.Kind
	switch ev.Kind {
	case execute.EventDenied, execute.EventRejected, execute.EventBlocked:
		st.denied = ev.Kind
	case execute.EventUnloaded:
		o.load(ctx, ev.Tool, "call_before_load")
	case execute.EventSearched:
		st.span.SetAttributes(queriesKey.StringSlice(ev.Queries), loadedKey.StringSlice(ev.Loaded))
		for _, n := range ev.Loaded {
			o.load(ctx, n, "tool_search")
		}
	}
}

// load records a schema the model loaded as a child span of the dispatch.
func (o *Observer) load(ctx context.Context, tool, by string) {
	_, sp := o.tracer.Start(ctx, "load_tool "+tool, trace.WithAttributes(
		semconv.GenAIToolName(tool), attribute.String("toolshelf.loaded_by", by)))
	sp.End()
}

// End ends the dispatch's span and records its metrics.
func (o *Observer) End(ctx context.Context, r registry.Result) {
	st, _ := ctx.Value(dispatchKey{}).(*dispatch)
	if st == nil {
		return
	}
	outcome := string(st.outcome)
	if outcome == "" {
		outcome = "none"
	}
	st.span.SetAttributes(outcomeKey.String(outcome))
	if r.IsError {
		st.span.SetAttributes(semconv.ErrorTypeKey.String(outcome))
		st.span.SetStatus(codes.Error, outcome)
	}
	st.span.End()
	tool := attribute.String(string(semconv.GenAIToolNameKey), st.tool)
	o.calls.Add(ctx, 1, metric.WithAttributes(tool, outcomeKey.String(outcome)))
	if st.denied != "" {
		o.denials.Add(ctx, 1, metric.WithAttributes(tool, attribute.String("toolshelf.decision", string(st.denied))))
	}
	if st.search {
		o.searchD.Record(ctx, time.Since(st.start).Seconds())
	}
}

// RecordTurn records one request's usage, a line of the session's
// [budget.Ledger] (the value [budget.Ledger.Add] returns): input and
// output tokens in gen_ai.client.token.usage, and the cache reads behind
// toolshelf.cache.hit_ratio, the ledger's hit ratio over every turn
// recorded. A line with a cache miss ([budget.FollowSession]) sets its
// cause on the span of ctx — the harness's span of the request —
// as toolshelf.cache.miss.cause (a [budget.MissCause]),
// toolshelf.cache.miss.tokens, toolshelf.cache.miss.provider_reason and
// toolshelf.cache.miss.text, with a "cache_miss" span event.
func (o *Observer) RecordTurn(ctx context.Context, t budget.LedgerTurn) {
	if t.InputTokens < 0 || t.CacheReadTokens < 0 || t.OutputTokens < 0 {
		return // a reply's usage is untrusted; a negative count is nonsense
	}
	if m := t.Miss; m != nil {
		attrs := []attribute.KeyValue{missCauseKey.String(string(m.Cause)), missTokensKey.Int(m.Missed),
			missProviderKey.String(m.Provider), missTextKey.String(m.Text)}
		sp := trace.SpanFromContext(ctx)
		sp.SetAttributes(attrs...)
		sp.AddEvent(string(execute.EventCacheMiss), trace.WithAttributes(attrs...))
	}
	o.tokens.Record(ctx, int64(t.InputTokens), metric.WithAttributes(semconv.GenAITokenTypeInput))
	o.tokens.Record(ctx, int64(t.OutputTokens), metric.WithAttributes(semconv.GenAITokenTypeOutput))
	in, hit := int64(t.InputTokens), int64(min(t.CacheReadTokens, t.InputTokens))
	if o.input.Load() > math.MaxInt64-in {
		return
	}
	o.input.Add(in)
	o.cacheHit.Add(hit)
}

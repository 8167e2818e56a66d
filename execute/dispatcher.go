package execute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/jsonx"
	"github.com/toolshelf/toolshelf/internal/engine/tagsafe"
	"github.com/toolshelf/toolshelf/internal/engine/toolname"
	"github.com/toolshelf/toolshelf/registry"
)

// Dispatcher runs every tool call, direct or through defer_execute, and
// every tool_search through one pipeline. The harness builds it with [New]
// and gives it to its sessions (request.Config.Dispatcher), which run each
// call through it (request.Session.Call) and leave out of what the model
// sees the tools its rules deny. It is safe for concurrent use by any
// number of sessions; the only state it keeps is its cache of resolved
// schemas.
type Dispatcher struct {
	opts  Options
	cache validators
	watch watchdog
}

// New returns a dispatcher. opts may be nil. It reports an error wrapping
// [ErrPermission] for an unusable permission rule or hook pattern.
func New(opts *Options) (*Dispatcher, error) {
	d := &Dispatcher{}
	if opts != nil {
		d.opts = *opts
	}
	o := &d.opts
	o.Permissions = slices.Clone(o.Permissions)
	o.Hooks = slices.Clone(o.Hooks)
	for _, r := range o.Permissions {
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("execute: %w", err)
		}
	}
	for i, h := range o.Hooks {
		if h.Pattern == "" {
			continue
		}
		if err := (Permission{Action: Allow, Pattern: h.Pattern}).check(); err != nil {
			return nil, fmt.Errorf("execute: hook %d (%q): %w", i, h.Name, err)
		}
	}
	if o.Default == 0 {
		o.Default = Allow
	}
	if o.Default > Deny {
		return nil, fmt.Errorf("execute: %w: default action %d: want Allow, Ask or Deny", ErrPermission, o.Default)
	}
	if o.MaxParamsBytes <= 0 {
		o.MaxParamsBytes = defaultMaxParamsBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = defaultMaxDepth
	}
	if o.MaxResultBytes == 0 {
		o.MaxResultBytes = defaultMaxResultBytes
	}
	if o.MaxSchemas <= 0 {
		o.MaxSchemas = defaultMaxSchemas
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = defaultCallTimeout
	}
	if len(o.Guidance) > 0 {
		g := make(map[string]string, len(o.Guidance))
		for k, v := range o.Guidance {
			g[k] = v
		}
		o.Guidance = g
	}
	d.cache = validators{max: o.MaxSchemas, byPtr: map[*registry.Tool]*validator{}, byKey: map[string]*validator{}}
	d.watch = newWatchdog(o.CallTimeout)
	return d, nil
}

// call is the state of one dispatch.
type call struct {
	s      Session
	sid    string
	target string // as the model wrote it
	via    string
	id     string // the provider's call ID
	t      *registry.Tool
	v      *validator
	red    *redactor // injected values to keep out of every text; nil before injection
}

// report is how every decision of a call reaches the observer: ev, with
// the call's facts filled in (session, target clipped to 80 bytes, via,
// call ID) and injected values scrubbed from its detail and pointer.
func (d *Dispatcher) report(ctx context.Context, c *call, ev Event) {
	ev.Session, ev.Tool, ev.Via, ev.CallID = c.sid, clip(c.target, 80), c.via, c.id
	d.emit(ctx, c.scrub(ev))
}

func errResult(text string) registry.Result { return registry.Result{Text: text, IsError: true} }

// callTool dispatches one call in session s ([Dispatcher.Call]).
// name is the name the model called: either defer_execute, whose args are
// {"tool_name": ..., "params": ...}, or a tool's own name, whose args are
// its params. The result is what the model reads; failures of any kind are
// error results, never panics.
func (d *Dispatcher) callTool(ctx context.Context, s Session, name string, args json.RawMessage) (res registry.Result) {
	c := &call{s: s, target: name, id: clip(callID(ctx), 200)}
	ctx = d.begin(ctx, s, name, c.id)
	defer d.settle(ctx, c, &res, false)
	if s == nil {
		d.emit(ctx, Event{Kind: EventHostError, Tool: clip(name, 80), Detail: "nil session"})
		return errResult(textNoSession)
	}
	c.sid = s.ID()
	if name == registry.DeferExecuteName {
		c.via = registry.DeferExecuteName
		c.target = ""
	}
	if p := scanBounds(args, d.opts.MaxParamsBytes, d.opts.MaxDepth+1); p != "" {
		return d.badInput(ctx, c, p)
	}
	params, shape := json.RawMessage(args), ""
	if c.via != "" {
		w := unwrap(args)
		if w.fatal != "" {
			return d.badInput(ctx, c, w.fatal)
		}
		c.target, params, shape = w.target, w.params, w.problem
		if c.target == registry.DeferExecuteName || c.target == registry.ToolSearchName {
			d.report(ctx, c, Event{Kind: EventRecursion})
			return errResult(textRecursion(c.target))
		}
	}
	return d.dispatch(ctx, c, params, shape)
}

// settle closes every dispatch ([Dispatcher.callTool], [Dispatcher.search]);
// deferred right after [Dispatcher.begin], so that it runs last. A panic
// becomes a host-error event and an error result; every text the model
// reads is valid UTF-8 (the next request body must encode it) and opens or
// closes none of the host's tags, whoever wrote it: the handler, a hook, or
// a message that quotes the model's own words. The observer's End comes
// last and sees the final result, even when reporting a panic panics.
// search picks the panic's wording; a func parameter for it would move c
// to the heap on every call.
func (d *Dispatcher) settle(ctx context.Context, c *call, res *registry.Result, search bool) {
	if d.opts.Observer != nil {
		defer func() { d.end(ctx, *res) }()
	}
	if r := recover(); r != nil {
		if search {
			d.report(ctx, c, Event{Kind: EventHostError, Detail: fmt.Sprintf("panic in tool_search: %v", r)})
			*res = errResult(textSearchPanic)
		} else {
			d.report(ctx, c, Event{Kind: EventHostError, Detail: fmt.Sprintf("panic in the dispatch pipeline: %v", r)})
			*res = errResult(textDispatchPanic(c.target))
		}
	}
	res.Text = safeText(res.Text)
}

// badInput answers arguments that name no tool usably.
func (d *Dispatcher) badInput(ctx context.Context, c *call, problem string) registry.Result {
	d.report(ctx, c, Event{Kind: EventBadInput, Detail: problem})
	if c.via != "" {
		return errResult(textBadWrapper(problem))
	}
	return errResult(textBadArgs(c.target, problem))
}

func (d *Dispatcher) dispatch(ctx context.Context, c *call, params json.RawMessage, shape string) registry.Result {
	// The steps are the package doc's. A name no tool can have gets step
	// 2's "unknown tool" answer before anything else.
	if !toolname.Valid(c.target) {
		return d.unknown(ctx, c)
	}
	// 1. Permission by name: a name a Deny rule matches is denied before
	// anything about the tool is looked up, so the answer is the same
	// whether it exists or not, and carries nothing of its schema.
	if vd := d.permit(c.target, nil); vd.action == Deny && vd.rule != "default" {
		return d.denied(ctx, c, vd)
	}
	// 2. Lookup and visibility: unknown and hidden are one answer (a short
	// name through defer_execute resolves first; a tool Sync removed says so).
	t, deferred, ok := c.s.Lookup(c.target)
	if (!ok || t == nil) && c.via != "" {
		if res, stop := d.resolveShort(ctx, c); stop {
			return res
		}
		t, deferred, ok = c.s.Lookup(c.target)
	}
	if !ok || t == nil {
		if ls, ok := c.s.(LiveSession); ok && ls.Removed(c.target) {
			return d.removed(ctx, c)
		}
		return d.unknown(ctx, c)
	}
	// 3. Permission by tool: rules by annotation, and a Deny default, need
	// the tool.
	if vd := d.permit(c.target, t); vd.action == Deny {
		return d.denied(ctx, c, vd)
	}
	c.t, c.v = t, d.cache.get(t)
	if shape == "" {
		shape = shapeProblem(params)
	}
	// 4. Loaded? Refused, answered with the schema, and loaded from now on.
	if deferred && !c.s.Loaded(c.target) {
		// The answer carries the schema: it loads the tool as tool_search
		// would, so rules that deny tool_search deny this load too.
		if vd := d.permit(registry.ToolSearchName, searchTool(c.s)); vd.action == Deny {
			return d.loadDenied(ctx, c, vd)
		}
		c.s.MarkLoaded(c.target)
		return d.unloaded(ctx, c, params, shape)
	}
	// 5. Schema validation: params that are not a JSON object and a schema
	// that cannot be used are answered first; then validation, defaults and
	// injected fields.
	if shape != "" {
		d.report(ctx, c, Event{Kind: EventBadInput, Detail: shape})
		return errResult(textBadParams(c.target, shape, d.correctCall(c)))
	}
	if c.v.err != nil {
		return d.hostError(ctx, c, hostSchemaUnusable, "schema: "+c.v.err.Error())
	}
	full, visible, res, ok := d.prepare(ctx, c, params)
	if !ok {
		return res
	}
	// 6. Permission rules that allow or ask (deny over ask over allow), on
	// the target's name.
	if res, ok := d.permission(ctx, c, visible); !ok {
		return res
	}
	// 7. Before-call hooks, the handler, after-call hooks.
	cl := &Call{Session: c.sid, Tool: t, Name: c.target, Via: c.via, ID: callID(ctx), Params: full}
	hooks := d.hooksFor(c.target, t)
	for _, h := range hooks {
		if h.Before == nil {
			continue
		}
		if res, ok := d.before(ctx, c, h, cl); !ok {
			return res
		}
	}
	res = d.run(ctx, c, cl)
	for _, h := range hooks {
		if h.After != nil {
			res = d.after(ctx, c, h, cl, res)
		}
	}
	// 8. The result: UTF-8 and tags, then the size bound, then guidance,
	// which is never cut.
	if !utf8.ValidString(res.Text) {
		d.report(ctx, c, Event{Kind: EventReplaced, Detail: "the result is not valid UTF-8; invalid bytes replaced with U+FFFD"})
	}
	res.Text = safeText(res.Text)
	res.Text = d.bound(ctx, c, res.Text)
	if g := d.opts.Guidance[c.target]; g != "" {
		res.Text = textGuided(res.Text, g)
	}
	d.report(ctx, c, Event{Kind: EventCompleted, Detail: fmt.Sprintf("is_error=%t bytes=%d", res.IsError, len(res.Text))})
	return res
}

func (d *Dispatcher) unknown(ctx context.Context, c *call) registry.Result {
	d.report(ctx, c, Event{Kind: EventUnknownTool})
	// Only what the model may call now is offered: never the name it just
	// used (a tool the view refuses would be offered back to itself, a
	// retry loop and an oracle for the name), nor a name the session no
	// longer shows or the rules deny.
	skip := func(n string) bool {
		if n == c.target {
			return true
		}
		if n == registry.DeferExecuteName || n == registry.ToolSearchName {
			return c.via != ""
		}
		t, _, ok := c.s.Lookup(n)
		if !ok {
			return true
		}
		_, denied := d.deniesAll(t)
		return denied
	}
	return errResult(textUnknown(c.target, closest(c.target, c.s.VisibleNames(), skip)))
}

func (d *Dispatcher) unloaded(ctx context.Context, c *call, params json.RawMessage, shape string) registry.Result {
	var problems []string
	if shape != "" {
		problems = append(problems, shape)
	} else if c.v.err == nil {
		obj, err := parseObject(params)
		if err != nil {
			problems = append(problems, strings.TrimPrefix(err.Error(), "params: "))
		} else {
			for k := range c.v.injected {
				delete(obj, k)
			}
			for _, v := range c.v.check(obj, nil) {
				if !c.v.injected[topKey(v.Pointer)] {
					problems = append(problems, v.String())
				}
			}
		}
	}
	d.report(ctx, c, Event{Kind: EventUnloaded, Detail: fmt.Sprintf("%d problems in the params", len(problems))})
	return errResult(textUnloaded(c.target, c.t.ModelSchema(), problems, d.correctCall(c)))
}

// correctCall shows the shape of a correct call of the target.
func (d *Dispatcher) correctCall(c *call) string {
	return textCorrectCall(c.target, c.v.example, c.via != "")
}

func (d *Dispatcher) hostError(ctx context.Context, c *call, what, detail string) registry.Result {
	d.report(ctx, c, Event{Kind: EventHostError, Detail: detail})
	return errResult(textHostError(c.target, what))
}

// topKey returns the first segment of a JSON pointer, unescaped.
func topKey(p string) string {
	p = strings.TrimPrefix(p, "/")
	p, _, _ = strings.Cut(p, "/")
	return strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
}

// prepare validates params, applies defaults and fills injected fields. It
// returns the params for the handler (full) and for the approver (visible,
// without injected fields).
func (d *Dispatcher) prepare(ctx context.Context, c *call, params json.RawMessage) (full, visible json.RawMessage, res registry.Result, ok bool) {
	v := c.v
	obj, err := parseObject(params)
	if err != nil {
		d.report(ctx, c, Event{Kind: EventBadInput, Detail: err.Error()})
		return nil, nil, errResult(textBadParams(c.target, clip(strings.TrimPrefix(err.Error(), "params: "), 160), d.correctCall(c))), false
	}
	before := make(map[string]bool, len(obj))
	for k := range obj {
		before[k] = true
	}
	for _, f := range c.t.Injected {
		if _, ok := obj[f]; ok {
			delete(obj, f)
			d.report(ctx, c, Event{Kind: EventInjectedIgnored, Detail: "model-supplied value for host field " + f + " ignored"})
		}
	}
	if v.defaults {
		if err := applyDefaults(v, &obj); err != nil {
			return nil, nil, d.hostError(ctx, c, hostDefaults, err.Error()), false
		}
	}
	injected := map[string]any{}
	if len(c.t.Injected) > 0 && d.opts.Inject != nil {
		vals, err := d.opts.Inject(ctx, c.sid, c.target)
		if err != nil {
			return nil, nil, d.hostError(ctx, c, hostInject, "inject: "+err.Error()), false
		}
		for _, f := range c.t.Injected {
			if val, ok := vals[f]; ok {
				obj[f] = val
				injected[f] = val
			}
		}
	}
	var model, host []string
	var first string
	c.red = newRedactor(injected)
	for _, vi := range v.check(obj, c.red) {
		// A violation on a host-filled field, or one whose message quoted
		// a host value (a constraint under if/then, allOf ... at the
		// root), is the harness's to fix, not the model's.
		if v.injected[topKey(vi.Pointer)] || strings.Contains(vi.Message, redacted) {
			host = append(host, vi.String())
			continue
		}
		if first == "" {
			first = vi.Pointer
			if first == "" {
				first = "/"
			}
		}
		model = append(model, vi.String())
	}
	if len(model) > 0 {
		d.report(ctx, c, Event{Kind: EventInvalid, Pointer: first, Detail: strings.Join(model, "; ")})
		return nil, nil, errResult(textInvalid(c.target, model, c.t.ModelSchema(), d.correctCall(c))), false
	}
	if len(host) > 0 {
		return nil, nil, d.hostError(ctx, c, hostFields, strings.Join(host, "; ")), false
	}
	// The model's bytes pass through untouched unless something was added.
	if !v.defaults && len(c.t.Injected) == 0 {
		if len(bytes.TrimSpace(params)) == 0 {
			params = json.RawMessage("{}")
		}
		return params, params, registry.Result{}, true
	}
	full, visible, err = merge(c.t, v, params, obj, before, injected)
	if err != nil {
		return nil, nil, d.hostError(ctx, c, hostEncode, err.Error()), false
	}
	return full, visible, registry.Result{}, true
}

// applyDefaults runs jsonschema-go's ApplyDefaults, which may panic on a
// default that cannot be assigned.
func applyDefaults(v *validator, obj *map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("apply defaults: %v", r)
		}
	}()
	return v.full.ApplyDefaults(obj)
}

// merge builds the handler's params from the model's members (source order,
// injected dropped), members a default changed re-encoded, new defaulted
// members in declared order, then injected fields in declared order.
func merge(t *registry.Tool, v *validator, params json.RawMessage, obj map[string]any, before map[string]bool, injected map[string]any) (full, visible json.RawMessage, err error) {
	var ms []jsonx.Member
	if len(bytes.TrimSpace(params)) > 0 {
		if ms, err = jsonx.Members(params); err != nil {
			return nil, nil, err
		}
	}
	out := make([]jsonx.Member, 0, len(ms)+len(v.topDefaults)+len(injected))
	for _, m := range ms {
		if v.injected[m.Key] {
			continue
		}
		if v.deepDefault[m.Key] {
			b, err := jsonx.Marshal(obj[m.Key])
			if err != nil {
				return nil, nil, err
			}
			m.Value = b
		}
		out = append(out, m)
	}
	for _, p := range v.props {
		val, ok := obj[p]
		if !ok || before[p] || v.injected[p] {
			continue
		}
		b, err := jsonx.Marshal(val)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, jsonx.Member{Key: p, Value: b})
	}
	visible = jsonx.AppendObject(nil, out)
	if len(injected) == 0 {
		return visible, visible, nil
	}
	for _, f := range t.Injected {
		val, ok := injected[f]
		if !ok {
			continue
		}
		b, err := jsonx.Marshal(val)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, jsonx.Member{Key: f, Value: b})
	}
	return jsonx.AppendObject(nil, out), visible, nil
}

// permission applies the rules to the target name.
func (d *Dispatcher) permission(ctx context.Context, c *call, visible json.RawMessage) (registry.Result, bool) {
	vd := d.permit(c.target, c.t)
	switch vd.action {
	case Allow:
		d.report(ctx, c, Event{Kind: EventAllowed, Rule: vd.rule})
		return registry.Result{}, true
	case Deny:
		return d.denied(ctx, c, vd), false
	}
	if d.opts.Ask == nil {
		d.report(ctx, c, Event{Kind: EventRejected, Rule: vd.rule, Detail: "no approver configured"})
		return errResult(textNoApprover(c.target)), false
	}
	rule := vd.r
	if vd.rule == "default" {
		rule = Permission{Action: Ask, Pattern: "*", Source: "default"}
	}
	yes, err := d.opts.Ask(ctx, AskRequest{Session: c.sid, Tool: c.target, Via: c.via, Params: visible, Rule: rule})
	if err != nil || !yes {
		ev := Event{Kind: EventRejected, Rule: vd.rule}
		if err != nil {
			ev.Detail = "approver failed: " + err.Error()
		}
		d.report(ctx, c, ev)
		return errResult(textNotApproved(c.target)), false
	}
	d.report(ctx, c, Event{Kind: EventApproved, Rule: vd.rule})
	return registry.Result{}, true
}

func (d *Dispatcher) hooksFor(target string, t *registry.Tool) []Hook {
	names, n := guardNames(target, t)
	var out []Hook
	for _, h := range d.opts.Hooks {
		if h.Pattern == "" || selectsAny(h.Pattern, names[:n], t) {
			out = append(out, h)
		}
	}
	return out
}

// before runs one before-call hook; a panic fails closed.
func (d *Dispatcher) before(ctx context.Context, c *call, h Hook, cl *Call) (res registry.Result, ok bool) {
	var vd Verdict
	if err := safely(func() { vd = h.Before(ctx, cl) }); err != nil {
		return d.hostError(ctx, c, hostHookFailed, fmt.Sprintf("hook %q: %v", h.Name, err)), false
	}
	if vd.Block {
		d.report(ctx, c, Event{Kind: EventBlocked, Hook: h.Name, Detail: vd.Reason})
		reason := strings.TrimSpace(c.red.text(vd.Reason))
		if reason == "" {
			reason = textNoReason
		}
		return errResult(textBlocked(c.target, reason)), false
	}
	if vd.Params == nil {
		return registry.Result{}, true
	}
	// A rewrite is validated again, against the full schema: hooks are host
	// code and may set injected fields.
	problem := scanBounds(vd.Params, d.opts.MaxParamsBytes, d.opts.MaxDepth)
	if problem == "" {
		problem = shapeProblem(vd.Params)
	}
	if problem == "" {
		obj, err := parseObject(vd.Params)
		if err != nil {
			problem = err.Error()
		} else if vs := c.v.check(obj, c.hookRedactor(obj)); len(vs) > 0 {
			parts := make([]string, len(vs))
			for i, v := range vs {
				parts[i] = v.String()
			}
			problem = strings.Join(parts, "; ")
		}
	}
	if problem != "" {
		return d.hostError(ctx, c, hostHookRewrite, fmt.Sprintf("hook %q: %s", h.Name, problem)), false
	}
	d.report(ctx, c, Event{Kind: EventRewritten, Hook: h.Name})
	cl.Params = slices.Clone(vd.Params)
	return registry.Result{}, true
}

func (d *Dispatcher) after(ctx context.Context, c *call, h Hook, cl *Call, in registry.Result) registry.Result {
	out := in
	if err := safely(func() { out = h.After(ctx, cl, in) }); err != nil {
		d.report(ctx, c, Event{Kind: EventHostError, Hook: h.Name, Detail: fmt.Sprintf("after hook panicked: %v; result kept", err)})
		return in
	}
	if out != in {
		d.report(ctx, c, Event{Kind: EventReplaced, Hook: h.Name})
	}
	return out
}

func safely(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	f()
	return nil
}

// run calls the handler with the caller's context.
func (d *Dispatcher) run(ctx context.Context, c *call, cl *Call) registry.Result {
	if c.t.Handler == nil {
		d.report(ctx, c, Event{Kind: EventNoHandler})
		return errResult(textNoHandler(c.target))
	}
	if err := ctx.Err(); err != nil {
		d.report(ctx, c, Event{Kind: EventHandlerError, Detail: err.Error()})
		return errResult(textCancelledBefore(c.target, err))
	}
	hctx := withCall(ctx, cl) // the handler reads its call with CallFromContext
	o, cause, finished := d.handle(hctx, c.t.Handler, cl.Params)
	res, err, perr := o.res, o.err, o.perr
	if errors.Is(cause, ErrCallTimeout) {
		d.report(ctx, c, Event{Kind: EventTimeout, Detail: fmt.Sprintf("%v; handler returned within the grace period: %t", cause, finished)})
		if !finished {
			return errResult(textTimedOut(c.target, d.opts.CallTimeout))
		}
	} else if cause != nil && !finished {
		d.report(ctx, c, Event{Kind: EventTimeout, Detail: cause.Error()})
		return errResult(textCancelledDuring(c.target, cause))
	}
	if perr != nil {
		d.report(ctx, c, Event{Kind: EventPanic, Detail: perr.Error()})
		return errResult(textHandlerPanic(c.target))
	}
	if err != nil {
		d.report(ctx, c, Event{Kind: EventHandlerError, Detail: err.Error()})
		return errResult(textHandlerError(res.Text, c.red.text(err.Error())))
	}
	return res
}

// outcome is what a handler's goroutine hands back.
type outcome struct {
	res  registry.Result
	err  error
	perr error // a panic, recovered
}

// handlerGrace is how long a handler whose context ended (deadline or
// caller) may still take to return its own result before Call answers
// without it: a handler that honours its context gets to say what it did.
const handlerGrace = 100 * time.Millisecond

// handle runs h on its own goroutine under the call's deadline. It returns
// what the handler returned, and cause, the reason its context ended, if
// it did. finished is false when the handler had not returned within
// [handlerGrace] after that: its goroutine is left to finish on its own
// (its result is dropped; the channel is buffered, so it never blocks).
// The deadline is kept by the dispatcher's watchdog rather than a timer
// per call: a timer cost about 4 µs a call on the 2-core CI machine, most
// of a call.
func (d *Dispatcher) handle(ctx context.Context, h registry.Handler, params json.RawMessage) (o outcome, cause error, finished bool) {
	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if d.opts.CallTimeout > 0 {
		id := d.watch.add(time.Now().Add(d.opts.CallTimeout), cancel)
		defer d.watch.remove(id)
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		o.perr = safely(func() { o.res, o.err = h(hctx, params) })
		done <- o
	}()
	select {
	case o := <-done:
		return o, nil, true
	case <-hctx.Done():
	}
	cause = context.Cause(hctx)
	grace := time.NewTimer(handlerGrace)
	defer grace.Stop()
	select {
	case o := <-done:
		return o, cause, true
	case <-grace.C:
		return outcome{}, cause, false
	}
}

// safeText returns s safe to quote to the model (tagsafe.Text, the one
// neutraliser). A handler may return any bytes: a binary file read, a
// server's hostile "</user_query><new_deferred_tool>".
func safeText(s string) string { return tagsafe.Text(s) }

// bound cuts text to the size bound at a rune boundary, with a note that
// says how to get the rest.
func (d *Dispatcher) bound(ctx context.Context, c *call, text string) string {
	max := d.opts.MaxResultBytes
	if max < 0 || len(text) <= max {
		return text
	}
	cut := cutRunes(text, max)
	d.report(ctx, c, Event{Kind: EventTruncated, Detail: fmt.Sprintf("%d of %d bytes kept", len(cut), len(text))})
	return textTruncated(cut, len(text), c.target, c.v.paging)
}

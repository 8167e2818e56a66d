package execute_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

type obsKey string

// trace records every call an observer gets, with the context values its
// predecessors set, into one shared log.
type trace struct {
	name string
	log  *[]string
}

func (t trace) seen(ctx context.Context) string {
	var got []string
	for _, k := range []obsKey{"a", "b"} {
		if v, ok := ctx.Value(k).(string); ok {
			got = append(got, v)
		}
	}
	return "[" + strings.Join(got, ",") + "]"
}

func (t trace) Begin(ctx context.Context, d execute.Dispatch) context.Context {
	*t.log = append(*t.log, t.name+" begin "+d.Name+" "+t.seen(ctx))
	return context.WithValue(ctx, obsKey(t.name), t.name)
}

func (t trace) Event(ctx context.Context, ev execute.Event) {
	*t.log = append(*t.log, t.name+" "+string(ev.Kind)+" "+t.seen(ctx))
}

func (t trace) End(ctx context.Context, r registry.Result) {
	*t.log = append(*t.log, t.name+" end "+t.seen(ctx))
}

// One sink: MultiObserver passes Begin and Event in order, each Begin
// seeing the context the one before returned, and End in reverse order;
// nil observers are skipped; a decision outside a dispatch reaches Event
// alone.
func TestMultiObserver(t *testing.T) {
	var log []string
	var evs events
	d := mustNew(t, &execute.Options{
		Permissions: execute.MustPermissions("Deny(ImageGen)"),
		Observer:    execute.MultiObserver(trace{"a", &log}, nil, execute.OnEvent(evs.add), trace{"b", &log}),
	})
	e := newEnv(t, deferral.View{})
	d.Call(context.Background(), e.session("s1", "ImageGen"), "ImageGen", []byte(`{"prompt":"x"}`))
	d.Options().Observer.Event(context.Background(), execute.Event{Kind: execute.EventToolChanged, Session: "s1", Tool: "WebFetch"})
	assert.Equal(t, []string{
		"a begin ImageGen []",
		"b begin ImageGen [a]",
		"a denied [a,b]",
		"b denied [a,b]",
		"b end [a,b]",
		"a end [a,b]",
		"a tool_changed []",
		"b tool_changed []",
	}, log)
	assert.Equal(t, []execute.EventKind{execute.EventDenied, execute.EventToolChanged}, evs.kinds(), "the callback sees the same events")
}

// MultiObserver of one observer is that observer; of none, or of nils,
// one that does nothing.
func TestMultiObserverDegenerate(t *testing.T) {
	var log []string
	one := trace{"a", &log}
	assert.Equal(t, execute.Observer(one), execute.MultiObserver(nil, one))
	for _, o := range []execute.Observer{execute.MultiObserver(), execute.MultiObserver(nil, nil), execute.OnEvent(nil), execute.LogEvents(nil)} {
		d := mustNew(t, &execute.Options{Observer: o, Permissions: execute.MustPermissions("Deny(ImageGen)")})
		e := newEnv(t, deferral.View{})
		res := d.Call(context.Background(), e.session("s1", "ImageGen"), "ImageGen", []byte(`{"prompt":"x"}`))
		assert.True(t, res.IsError, "denied whatever observes it")
	}
}

// LogEvents logs at the kind's level: a logger at Warn drops allowed and
// completed calls and keeps a denial.
func TestLogEventsLevels(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	d := mustNew(t, &execute.Options{Observer: execute.LogEvents(log), Permissions: execute.MustPermissions("Deny(ImageGen)")})
	e := newEnv(t, deferral.View{})
	s := e.session("s1", "ImageGen", "Read")
	d.Call(context.Background(), s, "Read", []byte(`{"file_path":"/a"}`))
	require.Empty(t, buf.String(), "allowed and completed log at Debug")
	d.Call(context.Background(), s, "ImageGen", []byte(`{"prompt":"x"}`))
	assert.Contains(t, buf.String(), `level=WARN msg="execute: denied" session=s1 tool=ImageGen rule=Deny(ImageGen)`)
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolshelf/toolshelf/budget"
	"github.com/toolshelf/toolshelf/execute"
	tsotel "github.com/toolshelf/toolshelf/integration/otel"
	"github.com/toolshelf/toolshelf/request"
)

// traceObserver returns an execute.Observer that makes the OpenTelemetry
// spans of integration/otel — one per search and per call, the
// dispatcher's decisions as events, a child span per loaded schema — and
// writes each ended span to w as one JSON line (the gateway carries no
// exporter of its own: a collector reads the file, or a Go program embeds
// the gateway's pieces with its own TracerProvider). The returned function
// flushes and stops the provider.
func traceObserver(w io.Writer) (execute.Observer, func(context.Context) error, error) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(&jsonSpans{w: w}))
	obs, err := tsotel.New(&tsotel.Options{TracerProvider: tp})
	if err != nil {
		return nil, nil, err
	}
	return obs, tp.Shutdown, nil
}

// jsonSpans writes spans as JSON lines.
type jsonSpans struct {
	mu sync.Mutex
	w  io.Writer
}

// spanLine is one span as the trace file holds it.
type spanLine struct {
	Name       string           `json:"name"`
	TraceID    string           `json:"trace_id"`
	SpanID     string           `json:"span_id"`
	Parent     string           `json:"parent_span_id,omitempty"`
	Start      time.Time        `json:"start"`
	End        time.Time        `json:"end"`
	Status     string           `json:"status,omitempty"`
	Attributes map[string]any   `json:"attributes,omitempty"`
	Events     []map[string]any `json:"events,omitempty"`
	Scope      string           `json:"scope"`
}

func (j *jsonSpans) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	enc := json.NewEncoder(j.w)
	for _, s := range spans {
		l := spanLine{
			Name: s.Name(), TraceID: s.SpanContext().TraceID().String(), SpanID: s.SpanContext().SpanID().String(),
			Start: s.StartTime(), End: s.EndTime(), Scope: s.InstrumentationScope().Name,
			Attributes: map[string]any{},
		}
		if s.Parent().IsValid() {
			l.Parent = s.Parent().SpanID().String()
		}
		if c := s.Status().Code.String(); c != "Unset" {
			l.Status = c
		}
		for _, a := range s.Attributes() {
			l.Attributes[string(a.Key)] = a.Value.AsInterface()
		}
		for _, e := range s.Events() {
			ev := map[string]any{"name": e.Name}
			for _, a := range e.Attributes {
				ev[string(a.Key)] = a.Value.AsInterface()
			}
			l.Events = append(l.Events, ev)
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonSpans) Shutdown(context.Context) error { return nil }

// savings is one client session's account: what the host did not have to
// send because the gateway listed tool_search and defer_execute instead of
// every tool, counted per tools/list the client made (a host sends the
// list it holds with every model request; these are the lists it fetched).
type savings struct {
	Session string `json:"session"`
	Client  string `json:"client,omitempty"`
	Profile string `json:"profile,omitempty"`
	// Lists counts the tools/list requests.
	Lists int `json:"tools_list_requests"`
	// AllResidentChars is what one list would carry with every visible
	// tool resident; GatewayChars what the gateway's list carries (the
	// resident tools, the entry tools and the index).
	AllResidentChars int `json:"all_resident_chars"`
	GatewayChars     int `json:"gateway_chars"`
	// SavedPerList is the budget account's net saving after the entry
	// tools (negative when the servers are so small that tool_search and
	// defer_execute cost more than they defer); Saved is it times Lists.
	SavedPerList int `json:"saved_chars_per_list"`
	Saved        int `json:"saved_chars"`
	// Loaded counts the schemas the client loaded.
	Loaded int `json:"schemas_loaded"`
}

// account returns the savings of session s after lists tools/list requests.
func account(s *request.Session, sid, client, profile string, lists int) (savings, error) {
	a, err := budget.AccountFor(s, nil)
	if err != nil {
		return savings{}, err
	}
	return savings{
		Session: sid, Client: client, Profile: profile, Lists: lists,
		AllResidentChars: a.CharsTotal,
		GatewayChars:     a.ResidentWithEntry + a.IndexChars,
		SavedPerList:     a.NetSavingAfterEntry, Saved: a.NetSavingAfterEntry * lists,
		Loaded: len(s.LoadedNames()),
	}, nil
}

package execute_test

import (
	"context"
	"encoding/json"
	"testing"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// BenchmarkDispatch measures the whole pipeline (validation cached, a rule
// set, a hook) against calling the same handler directly, in the same run,
// and reports the ratio as x-handler.
func BenchmarkDispatch(b *testing.B) {
	e := newEnv(b, deferral.View{})
	d := mustNew(b, &execute.Options{
		Permissions: execute.MustPermissions("Allow(Read)", "Ask(Bash)", "Deny(ImageGen)", "Allow(mcp__*)"),
		Hooks:       []execute.Hook{{Name: "audit", Before: func(context.Context, *execute.Call) execute.Verdict { return execute.Verdict{} }}},
	})
	s := e.session("bench", "WebFetch")
	ctx := context.Background()
	tl, _ := e.reg.Snapshot().Tool("WebFetch")
	params := json.RawMessage(`{"url":"https://go.dev/doc","prompt":"summarize the page"}`)
	args := wrap("WebFetch", string(params))

	// The baseline runs first, in the same process and run.
	var directNs float64
	b.Run("handler", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tl.Handler(ctx, params); err != nil {
				b.Fatal(err)
			}
		}
		directNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	for _, c := range []struct {
		name string
		tool string
		args json.RawMessage
	}{
		{"direct-call", "WebFetch", params},
		{"defer_execute", registry.DeferExecuteName, args},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := d.Call(ctx, s, c.tool, c.args); r.IsError {
					b.Fatal(r.Text)
				}
			}
			if directNs > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/directNs, "x-handler")
			}
		})
	}
}

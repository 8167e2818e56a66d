package sdkcheck

import (
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolshelf/toolshelf/request"
)

// sdkParams decodes body into p's SDK param type: the same request, built
// with the SDK's own types, as a harness using the SDK would hold it.
func sdkParams(b *testing.B, p request.Provider, body []byte) any {
	var v any
	switch p {
	case request.OpenAIChat:
		v = new(openai.ChatCompletionNewParams)
	case request.OpenAIResponses:
		v = new(responses.ResponseNewParams)
	default:
		v = new(anthropic.MessageNewParams)
	}
	if err := json.Unmarshal(body, v); err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkTurnBody compares emitting the body of turn 100 of a session (the
// github and harness catalogs, 300 messages of history) with toolshelf's
// BuildRequest / AppendRequest against marshaling the same request held in
// the official SDK's param types, as a harness using the SDK does each turn.
// The AppendRequest sub-benchmark, which runs last for each provider,
// reports the run's like-for-like ratio sdk/BuildRequest (both make a fresh
// body) and, for reference, sdk/AppendRequest (a reused buffer); they are
// quoted in docs/performance.md.
func BenchmarkTurnBody(b *testing.B) {
	snap := catalogSnapshot(b)
	for _, p := range providers {
		s := newSession(b, p, snap)
		var body []byte
		for _, tr := range turns(100) {
			var err error
			if body, err = s.BuildRequest(tr); err != nil {
				b.Fatal(err)
			}
		}
		params := sdkParams(b, p, body)
		ns := map[string]float64{}
		record := func(b *testing.B, name string) { ns[name] = float64(b.Elapsed().Nanoseconds()) / float64(b.N) }
		b.Run(string(p)+"/sdk-marshal", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				out, err := json.Marshal(params)
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			record(b, "sdk")
			b.ReportMetric(float64(n), "bytes/request")
		})
		b.Run(string(p)+"/BuildRequest", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				out, err := s.BuildRequest(request.Turn{})
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			record(b, "build")
			b.ReportMetric(float64(n), "bytes/request")
		})
		b.Run(string(p)+"/AppendRequest", func(b *testing.B) {
			buf := make([]byte, 0, 2*len(body))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = s.AppendRequest(buf[:0], request.Turn{}); err != nil {
					b.Fatal(err)
				}
			}
			record(b, "append")
			b.ReportMetric(float64(len(buf)), "bytes/request")
			if ns["sdk"] > 0 && ns["build"] > 0 {
				b.ReportMetric(ns["sdk"]/ns["build"], "sdk/BuildRequest")
				b.ReportMetric(ns["sdk"]/ns["append"], "sdk/AppendRequest")
			}
		})
	}
}

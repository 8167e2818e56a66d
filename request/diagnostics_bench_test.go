package request

import (
	"testing"
	"time"
)

// BenchmarkDiagnostics measures what Config.Diagnostics and the change log
// cost a steady turn (one user message after the assistant's reply, on the
// 400-tool catalog with 200 messages of history, Anthropic): AppendRequest
// with the option against the same session without it, in alternating
// blocks, reported as diagnostics/plain (x's time over y's).
func BenchmarkDiagnostics(b *testing.B) {
	snap, policy := benchCatalog(b)
	mk := func(diag bool) (*Session, func()) {
		cfg := testConfig(snap, Anthropic, policy, nil)
		cfg.Diagnostics = diag
		s, err := NewSession(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.BuildRequest(Turn{Messages: benchHistory()}); err != nil {
			b.Fatal(err)
		}
		turn := Turn{Messages: []Message{{Role: RoleAssistant, Text: "Done.", ReplyID: "msg_01XFDUDYJgAACzvnptvVoYEL"}, userMsg("What changed since the last build?")}}
		base := s.hist.mark()
		buf := make([]byte, 0, 1<<20)
		return s, func() {
			var err error
			if buf, err = s.AppendRequest(buf[:0], turn); err != nil {
				b.Fatal(err)
			}
			s.hist.rewind(base)
		}
	}
	_, diag := mk(true)
	_, plain := mk(false)
	for _, sub := range []struct {
		name string
		op   func()
	}{{"diagnostics", diag}, {"plain", plain}} {
		b.Run(sub.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sub.op()
			}
		})
	}
	b.Run("ratio", func(b *testing.B) {
		const n = 200
		var tx, ty time.Duration
		for b.Loop() {
			t0 := time.Now()
			for range n {
				diag()
			}
			t1 := time.Now()
			for range n {
				plain()
			}
			tx, ty = tx+t1.Sub(t0), ty+time.Since(t1)
		}
		b.ReportMetric(float64(tx)/float64(ty), "diagnostics/plain")
	})
}

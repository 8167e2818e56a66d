package budget

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkTurnAccounting measures accounting for turn 200 of a
// conversation: Tally.Add of the turn's new sections against Measure of the
// whole request (every section looked up in the cache again), reported as
// measure/tally.
func BenchmarkTurnAccounting(b *testing.B) {
	c, _ := NewCounter(O200kBase)
	var all []Section
	for i := range 200 {
		name := fmt.Sprintf("message %d", i)
		// Built per turn, as a harness decoding replies builds them.
		all = append(all,
			Section{Name: name, Class: ClassMessage, Text: fmt.Sprintf("Question %d: %s", i, strings.Repeat("please explain the build output ", 6)), Frozen: true},
			Section{Name: name + " reply", Class: ClassMessage, Kind: KindJSON, Text: fmt.Sprintf(`{"file_path":"/src/file_%d.go","body":%q}`, i, strings.Repeat("package main\n", 20)), Frozen: true})
	}
	last := all[len(all)-2:]
	c.Measure(all) // warm: every section cached
	tally := c.Tally()
	tally.Add(all[:len(all)-2]...)
	rows, total := len(tally.m.Rows), tally.m.Total
	measure := nsPerOp(func() { c.Measure(all) })
	var d time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		tally.Add(last...)
		d += time.Since(t0)
		tally.m.Rows, tally.m.Total = tally.m.Rows[:rows], total
	}
	b.ReportMetric(measure, "measure-ns/op")
	b.ReportMetric(measure/(float64(d.Nanoseconds())/float64(b.N)), "measure/tally")
}

// nsPerOp times f in the same run as a benchmark (testing.Benchmark cannot
// run inside one): doubling the iterations until they take 200 ms.
func nsPerOp(f func()) float64 {
	for n := 1; ; n *= 2 {
		t0 := time.Now()
		for range n {
			f()
		}
		if d := time.Since(t0); d > 200*time.Millisecond {
			return float64(d.Nanoseconds()) / float64(n)
		}
	}
}

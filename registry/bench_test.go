package registry

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// benchRegistry imports renamed copies of every test catalog until n tools.
func benchRegistry(b *testing.B, n int) *Registry {
	files, err := filepath.Glob("../testdata/catalogs/*.tools.json")
	if err != nil || len(files) == 0 {
		b.Fatal("no catalogs", err)
	}
	var cats []*Catalog
	for _, f := range files {
		c, err := LoadCatalog(f)
		if err != nil {
			b.Fatal(err)
		}
		cats = append(cats, c)
	}
	r := New(nil)
	for k := 0; len(r.Snapshot().Tools()) < n; k++ {
		for _, c := range cats {
			rest := n - len(r.Snapshot().Tools())
			if rest <= 0 {
				break
			}
			cp := *c
			cp.Server = fmt.Sprintf("%s-%d", strings.ReplaceAll(c.Server, "_", "-"), k)
			cp.Tools = c.Tools[:min(rest, len(c.Tools))]
			if err := r.Import(&cp); err != nil {
				b.Fatal(err)
			}
		}
	}
	return r
}

// BenchmarkSnapshot measures freezing a 1,000-tool registry after a change
// (a self-built tool registered, then Snapshot), against the baseline of
// the same work done plainly: the registration alone, plus collecting the
// map's tools into a slice sorted by name. "cached" is Snapshot without a
// change (a pointer). The freeze sub-benchmark reports freeze/baseline.
func BenchmarkSnapshot(b *testing.B) {
	r := benchRegistry(b, 1000)
	tool := Tool{Name: "bench_tool", Description: "A tool registered and removed each iteration.", RawSchema: json.RawMessage(`{"type":"object"}`)}
	var base float64
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := r.Register(tool); err != nil {
				b.Fatal(err)
			}
			r.mu.Lock()
			ts := make([]*Tool, 0, len(r.tools))
			for _, t := range r.tools {
				ts = append(ts, t)
			}
			r.mu.Unlock()
			slices.SortFunc(ts, func(x, y *Tool) int { return strings.Compare(x.Name, y.Name) })
			if err := r.Remove(tool.Name); err != nil {
				b.Fatal(err)
			}
		}
		base = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("freeze", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := r.Register(tool); err != nil {
				b.Fatal(err)
			}
			if len(r.Snapshot().Tools()) != 1001 {
				b.Fatal("the snapshot misses the new tool")
			}
			if err := r.Remove(tool.Name); err != nil {
				b.Fatal(err)
			}
		}
		if base > 0 {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "freeze/baseline")
		}
	})
	b.Run("cached", func(b *testing.B) {
		r.Snapshot()
		b.ReportAllocs()
		for b.Loop() {
			r.Snapshot()
		}
	})
}

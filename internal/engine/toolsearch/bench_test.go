package toolsearch

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// syntheticPlan grows a catalog of n tools from the 10 real ones: copy k of
// every server is registered as server "<name>-<k>", until n tools.
func syntheticPlan(b testing.TB, n int) *deferral.Plan {
	b.Helper()
	var cats []*registry.Catalog
	for _, p := range catalogPaths(b) {
		c, err := registry.LoadCatalog(p)
		require.NoError(b, err)
		cats = append(cats, c)
	}
	reg := registry.New(nil)
	count := 0
	for k := 0; count < n; k++ {
		for _, c := range cats {
			cp := *c
			cp.Server = fmt.Sprintf("%s-%d", c.Server, k)
			if rest := n - count; len(cp.Tools) > rest {
				cp.Tools = cp.Tools[:rest]
			}
			if len(cp.Tools) == 0 {
				break
			}
			require.NoError(b, reg.Import(&cp))
			count += len(cp.Tools)
		}
	}
	plan, err := (&deferral.Policy{Default: deferral.DefaultDefer}).Plan(reg.Snapshot(), deferral.View{Tier: registry.TierFull})
	require.NoError(b, err)
	require.Len(b, plan.Deferred(), n)
	return plan
}

var benchQuery = []string{"open a PR", "创建拉取请求"}

func BenchmarkIndexBuild(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		plan := syntheticPlan(b, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(plan, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQuery measures one fuzzy ranking; BenchmarkQueryPlainBM25 is
// the baseline in the same run (a scan over every tool).
func BenchmarkQuery(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		s, err := New(syntheticPlan(b, n), nil)
		require.NoError(b, err)
		ctx := context.Background()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Search(ctx, benchQuery, 5, Scope{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkQueryPlainBM25(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		ix := newPlainBM25(syntheticPlan(b, n).Deferred())
		ctx := context.Background()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = ix.Search(ctx, benchQuery, 5)
			}
		})
	}
}

// BenchmarkCall is a whole fuzzy tool_search call, text included.
func BenchmarkCall(b *testing.B) {
	s, err := New(syntheticPlan(b, 1000), nil)
	require.NoError(b, err)
	args := []byte(`{"queries": ["open a PR", "创建拉取请求"]}`)
	b.ReportAllocs()
	for b.Loop() {
		s.Call(context.Background(), args, Scope{})
	}
}

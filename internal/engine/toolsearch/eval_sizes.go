package toolsearch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tiktoken-go/tokenizer"
)

// SizeRange is tool_search's figures over catalog unions of one size range
// ([EvalSizes]): the report of every union's queries pooled.
type SizeRange struct {
	// MinTools and MaxTools bound the range (tools in one union); Unions
	// counts the unions drawn in it, Smallest and Largest their sizes.
	MinTools int `json:"min_tools"`
	MaxTools int `json:"max_tools"`
	Unions   int `json:"unions"`
	Smallest int `json:"smallest"`
	Largest  int `json:"largest"`
	*Report
}

// Label names the range as a table does: "2–30 tools".
func (r SizeRange) Label() string {
	return fmt.Sprintf("%d–%d tools", r.MinTools, r.MaxTools)
}

// sizeBounds are the upper bounds of [EvalSizes]' ranges: the catalogs
// most harnesses defer (two to four servers, 10–80 tools), then larger.
var sizeBounds = []int{30, 100, 300, 1000, 5000}

// EvalSizes measures tool_search at the catalog sizes harnesses have:
// unions random unions of 2–4 of the catalog files (a fixed draw by seed,
// each union once), each searched over with the positive queries whose
// expected tools it holds (every one: the query's server is present) and
// with every no-match query ("expect": []). Figures are pooled per size
// range of the unions, [sizeBounds]; a range no union falls in is left
// out. Halves are the queries' own ([Half]), so a query lands in the same
// half in every union.
func EvalSizes(ctx context.Context, paths []string, qs []EvalQuery, unions int, seed uint64) ([]SizeRange, error) {
	if len(paths) < 2 {
		return nil, fmt.Errorf("%w: a size evaluation needs at least 2 catalog files, got %d", ErrQueries, len(paths))
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("search: evaluation tokenizer: %w", err)
	}
	type pair struct {
		s *Searcher
		q EvalQuery
	}
	byRange := map[int][]pair{}
	ranges := map[int]*SizeRange{}
	for _, u := range drawUnions(len(paths), unions, seed) {
		var files []string
		for _, i := range u {
			files = append(files, paths[i])
		}
		plan, err := PlanCatalogs(files...)
		if err != nil {
			return nil, err
		}
		s, err := New(plan, nil)
		if err != nil {
			return nil, err
		}
		n := len(plan.Deferred())
		b, _ := slices.BinarySearch(sizeBounds, n)
		if b == len(sizeBounds) {
			b--
		}
		r := ranges[b]
		if r == nil {
			lo := 1
			if b > 0 {
				lo = sizeBounds[b-1] + 1
			}
			r = &SizeRange{MinTools: lo, MaxTools: sizeBounds[b], Smallest: n, Largest: n}
			ranges[b] = r
		}
		r.Unions++
		r.Smallest, r.Largest = min(r.Smallest, n), max(r.Largest, n)
		for _, q := range qs {
			if holdsAll(s, q.Expect) {
				byRange[b] = append(byRange[b], pair{s, q})
			}
		}
	}
	var out []SizeRange
	for b := range sizeBounds {
		r := ranges[b]
		if r == nil {
			continue
		}
		ps := byRange[b]
		rqs := make([]EvalQuery, len(ps))
		for i, p := range ps {
			rqs[i] = p.q
		}
		rep, err := evaluate(ctx, rqs, func(ctx context.Context, i int, q []string) (evalRun, error) {
			return ps[i].s.evalOne(ctx, enc, q)
		})
		if err != nil {
			return nil, err
		}
		r.Report = rep
		out = append(out, *r)
	}
	return out, nil
}

// holdsAll reports whether every expected tool is one of s's deferred
// tools (true for a no-match query).
func holdsAll(s *Searcher, expect []string) bool {
	for _, e := range expect {
		if _, ok := s.tools[e]; !ok {
			return false
		}
	}
	return true
}

// drawUnions draws up to want distinct sets of 2–4 of n indices (sorted),
// by seed: the same draw on every run.
func drawUnions(n, want int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 47))
	seen := map[string]bool{}
	var out [][]int
	for tries := 0; len(out) < want && tries < 50*want; tries++ {
		k := 2 + rng.IntN(3)
		if k > n {
			k = n
		}
		u := rng.Perm(n)[:k]
		slices.Sort(u)
		key := strings.Trim(fmt.Sprint(u), "[]")
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, u)
	}
	return out
}

package ecmare

import (
	"slices"
	"unicode"
)

// span is a range of code points, both ends included.
type span = [2]rune

// delta is how ECMA-262's set for one \p{...} value differs from Go's
// table of the same name: the code points it adds and the ones it drops.
type delta struct{ add, del []span }

// spansOf returns t's code points as sorted, disjoint, merged ranges.
func spansOf(t *unicode.RangeTable) []span {
	var out []span
	add := func(lo, hi rune) {
		if n := len(out); n > 0 && out[n-1][1]+1 >= lo {
			out[n-1][1] = max(out[n-1][1], hi)
			return
		}
		out = append(out, span{lo, hi})
	}
	each := func(lo, hi, stride rune) {
		if stride == 1 {
			add(lo, hi)
			return
		}
		for c := lo; c <= hi; c += stride {
			add(c, c)
		}
	}
	for _, r := range t.R16 {
		each(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range t.R32 {
		each(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	return out
}

// union returns the code points of a or b (both sorted and disjoint) as
// sorted, disjoint, merged ranges.
func union(a, b []span) []span {
	all := append(slices.Clone(a), b...)
	slices.SortFunc(all, func(x, y span) int { return int(x[0] - y[0]) })
	var out []span
	for _, r := range all {
		if n := len(out); n > 0 && out[n-1][1]+1 >= r[0] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// minus returns the code points of a outside b (both sorted, disjoint).
func minus(a, b []span) []span {
	var out []span
	j := 0
	for _, r := range a {
		lo := r[0]
		for j < len(b) && b[j][1] < lo {
			j++
		}
		for k := j; k < len(b) && b[k][0] <= r[1] && lo <= r[1]; k++ {
			if b[k][0] > lo {
				out = append(out, span{lo, b[k][0] - 1})
			}
			lo = b[k][1] + 1
		}
		if lo <= r[1] {
			out = append(out, span{lo, r[1]})
		}
	}
	return out
}

package schemacheck

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Numbers in a schema. jsonschema-go v0.4.3 decodes a schema's numbers as
// float64, where 9007199254740993 (2^53+1) reads as 2^53, while the
// dispatcher reads a call's integers exactly (int64 or uint64) and the
// validator compares numbers as big.Rat. So Prepare makes the schema side
// exact too:
//
//   - enum and const: an integer of magnitude 2^53 or more (at any depth of
//     the value) is given to the validator as int64 or uint64, which it
//     compares exactly; one beyond 64 bits, which no call can carry (the
//     dispatcher refuses such integers), refuses the tool;
//   - minimum, maximum, exclusiveMinimum, exclusiveMaximum: a bound float64
//     holds exactly is exact already. One it does not hold exactly is kept
//     when no integer lies between the bound and its float64 (0.1: calls'
//     integers compare exactly, fractions compare as binary64, as the call
//     reads them); an integer bound is rewritten to the equivalent bound of
//     the other kind when float64 holds that one (maximum 2^63-1 becomes
//     exclusiveMaximum 2^63); any other refuses the tool;
//   - multipleOf: an integer float64 does not hold exactly refuses the tool.
//
// A refusal names the keyword and the schema's path: a keyword is never
// silently dropped from validation for its numbers.

// maxNumberLen bounds a number literal Prepare reads exactly, and
// maxExponent its exponent: 10^maxExponent is cheap to hold as a big.Int,
// and far beyond float64's range (1.8e308; 5e-324).
const (
	maxNumberLen = 1000
	maxExponent  = 1000
)

var (
	maxExact = new(big.Rat).SetInt64(MaxExactInt)
	// The integers a call can carry: the dispatcher reads int64 or uint64.
	callMin = new(big.Rat).SetInt64(math.MinInt64)
	callMax = new(big.Rat).SetUint64(math.MaxUint64)
)

// exactValues are the enum and const of one schema of the copy as the
// validator must hold them (nil when jsonschema-go's own reading is
// exact).
type exactValues struct {
	enum  []any
	konst any
	has   bool // konst is set (it may be nil: JSON null)
}

// decimal reads a JSON number literal exactly; ok is false when it is too
// long, or its exponent too large, to be held exactly at a bounded cost.
func decimal(lit string) (*big.Rat, bool) {
	if len(lit) > maxNumberLen {
		return nil, false
	}
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, false
		}
	}
	return new(big.Rat).SetString(lit)
}

// exactNumbers makes s's enum, const and numeric bounds compare exactly
// (see above), recording the enum and const values for [prep.applyExact];
// what it cannot make exact sets p.err.
func (p *prep) exactNumbers(s map[string]any, path string) {
	var ev exactValues
	if list, ok := s["enum"].([]any); ok {
		out := make([]any, len(list))
		changed := false
		for i, v := range list {
			x, big, err := exactValue(v)
			if err != "" {
				p.refuse(path, "enum", err)
				return
			}
			out[i], changed = x, changed || big
		}
		if changed {
			ev.enum = out
		}
	}
	if v, ok := s["const"]; ok {
		x, big, err := exactValue(v)
		if err != "" {
			p.refuse(path, "const", err)
			return
		}
		if big {
			ev.konst, ev.has = x, true
		}
	}
	if ev.enum != nil || ev.has {
		p.exact[path] = ev
	}
	for _, k := range numbers {
		if p.err != nil {
			return
		}
		if n, ok := s[k].(json.Number); ok {
			p.bound(s, path, k, n.String())
		}
	}
}

// exactValue returns v (decoded with UseNumber) as the validator must hold
// it: numbers as float64, except integers of magnitude 2^53 or more, as
// int64 or uint64 (big is true when there is one). A non-empty reason
// refuses the value.
func exactValue(v any) (out any, big bool, reason string) {
	switch x := v.(type) {
	case json.Number:
		return exactNumber(x.String())
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var b bool
			if out[i], b, reason = exactValue(e); reason != "" {
				return nil, false, reason
			}
			big = big || b
		}
		return out, big, ""
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			var b bool
			if out[k], b, reason = exactValue(e); reason != "" {
				return nil, false, reason
			}
			big = big || b
		}
		return out, big, ""
	}
	return v, false, ""
}

func exactNumber(lit string) (any, bool, string) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, false, fmt.Sprintf("the number %s is beyond float64's range", clip(lit))
	}
	if math.Abs(f) < MaxExactInt && math.Trunc(f) != f {
		return f, false, "" // a fraction: a call's fraction reads as the same float64
	}
	r, ok := decimal(lit)
	if !ok {
		return nil, false, fmt.Sprintf("the number %s is too long to compare exactly", clip(lit))
	}
	if !r.IsInt() || new(big.Rat).Abs(r).Cmp(maxExact) < 0 {
		return f, false, ""
	}
	n := r.Num()
	switch {
	case n.IsInt64():
		return n.Int64(), true, ""
	case n.IsUint64():
		return n.Uint64(), true, ""
	}
	return nil, false, fmt.Sprintf("the integer %s is beyond 64 bits, which no call can carry (the dispatcher refuses such integers); write it as a string", clip(lit))
}

// bound makes the numeric keyword k of s (literal lit) exact, or refuses.
func (p *prep) bound(s map[string]any, path, k, lit string) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return // out of float64's range: the copy does not decode, and the tool is checked as an object (a note says so)
	}
	r, ok := decimal(lit)
	if !ok {
		p.refuse(path, k, fmt.Sprintf("the number %s is too long to compare exactly", clip(lit)))
		return
	}
	fr := new(big.Rat).SetFloat64(f)
	if fr.Cmp(r) == 0 {
		return
	}
	if k == "multipleOf" {
		if r.IsInt() {
			p.refuse(path, k, fmt.Sprintf("%s reads as %s in the validator's float64; calls could not be checked exactly against it", clip(lit), floatText(f)))
		}
		return // a fraction (0.01) divides as binary64, as jsonschema-go computes it
	}
	lo, hi := r, fr
	if lo.Cmp(hi) > 0 {
		lo, hi = hi, lo
	}
	if c := ceil(lo); c.Cmp(hi) > 0 || c.Cmp(callMax) > 0 || hi.Cmp(callMin) < 0 {
		return // no integer a call can carry between: integers compare exactly against either
	}
	if r.IsInt() {
		one := big.NewRat(1, 1)
		alt, to := new(big.Rat), ""
		switch k {
		case "minimum":
			alt.Sub(r, one)
			to = "exclusiveMinimum"
		case "maximum":
			alt.Add(r, one)
			to = "exclusiveMaximum"
		case "exclusiveMinimum":
			alt.Add(r, one)
			to = "minimum"
		case "exclusiveMaximum":
			alt.Sub(r, one)
			to = "maximum"
		}
		if af, _ := alt.Float64(); new(big.Rat).SetFloat64(af).Cmp(alt) == 0 {
			delete(s, k)
			n := json.Number(alt.Num().String())
			if _, taken := s[to]; !taken {
				s[to] = n
				return
			}
			all, _ := s["allOf"].([]any)
			s["allOf"] = append(all, map[string]any{to: n}) // appended: pointers into allOf keep their meaning
			return
		}
	}
	p.refuse(path, k, fmt.Sprintf("%s reads as %s in the validator's float64, and calls near it could not be checked exactly; write a bound float64 holds exactly", clip(lit), floatText(f)))
}

// ceil returns the least integer at or above r.
func ceil(r *big.Rat) *big.Rat {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int)) // Euclidean: q = floor for a positive denominator
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return new(big.Rat).SetInt(q)
}

func (p *prep) refuse(path, kw, reason string) {
	if p.err == nil {
		p.err = fmt.Errorf("%w: at %s: %s: %s", ErrSchema, where(path), kw, reason)
	}
}

// applyExact puts the exact enum and const values recorded by exactNumbers
// into the decoded copy s (at path).
func (p *prep) applyExact(s *jsonschema.Schema, path string) {
	if len(p.exact) == 0 {
		return
	}
	if ev, ok := p.exact[path]; ok {
		if ev.enum != nil && len(s.Enum) == len(ev.enum) {
			s.Enum = ev.enum
		}
		if ev.has && s.Const != nil {
			c := ev.konst
			s.Const = &c
		}
	}
	eachChild(s, func(key string, sub *jsonschema.Schema) bool {
		p.applyExact(sub, path+"/"+key)
		return true
	})
}

// floatText writes f exactly when it is an integer (2^55+4, not the
// shortest form 36028797018963970, which reads back as f but is not f).
func floatText(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// HasMultipleOf reports whether s or a subschema of it has multipleOf.
// jsonschema-go v0.4.3 divides a value by it as float64 (validate.go:
// "nf, _ := n.Float64()"), which is exact for integers up to 2^53 in
// magnitude and not beyond: 2^53+1 reads as 2^53, a multiple of 2. A caller
// holding a larger integer cannot have it checked exactly against such a
// schema. s must have passed [Check] (a tree of bounded depth).
func HasMultipleOf(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if s.MultipleOf != nil {
		return true
	}
	found := false
	eachChild(s, func(_ string, sub *jsonschema.Schema) bool {
		found = HasMultipleOf(sub)
		return !found
	})
	return found
}

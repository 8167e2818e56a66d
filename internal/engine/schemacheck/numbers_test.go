package schemacheck

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exactDoc decodes a document as the dispatcher reads call params:
// integers exactly (int64 or uint64), other numbers as float64.
func exactDoc(t *testing.T, doc string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(doc)))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	var conv func(any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			if i, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
				return i
			}
			if u, err := strconv.ParseUint(x.String(), 10, 64); err == nil {
				return u
			}
			f, err := x.Float64()
			require.NoError(t, err)
			return f
		case []any:
			for i := range x {
				x[i] = conv(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = conv(x[k])
			}
		}
		return v
	}
	return conv(v)
}

// Issue 33: integers at or above 2^53 in enum, const and the numeric
// bounds are validated exactly. On 12e017c the enum rows were left out of
// validation with a warning (any integer passed), and the bounds read as
// float64 (maximum 9007199254740993 let 9007199254740994 through).
func TestPrepareBigNumbersExact(t *testing.T) {
	for _, c := range []struct {
		name, prop     string
		accept, refuse []string
	}{
		{"enum of the issue", `{"enum":[1234567890123456789]}`,
			[]string{`1234567890123456789`}, []string{`1234567890123456700`, `1234567890123456788`, `"1234567890123456789"`, `1234567890123456789.0`}},
		{"enum mixing small and big", `{"enum":[1,"x",9007199254740993]}`,
			[]string{`1`, `"x"`, `9007199254740993`}, []string{`9007199254740992`, `2`}},
		{"const int64 min", `{"const":-9223372036854775808}`,
			[]string{`-9223372036854775808`}, []string{`-9223372036854775807`}},
		{"const uint64 max", `{"const":18446744073709551615}`,
			[]string{`18446744073709551615`}, []string{`18446744073709551614`}},
		{"nested in an enum value", `{"enum":[[9007199254740993],{"id":9007199254740995}]}`,
			[]string{`[9007199254740993]`, `{"id":9007199254740995}`}, []string{`[9007199254740992]`, `{"id":9007199254740996}`}},
		{"exponent form", `{"enum":[1e18, 1.5e17]}`,
			[]string{`1000000000000000000`, `150000000000000000`}, []string{`1000000000000000001`, `150000000000000001`}},
		{"maximum int64 max", `{"maximum":9223372036854775807}`,
			[]string{`9223372036854775807`, `-1`}, []string{`9223372036854775808`, `18446744073709551615`}},
		{"minimum 2^53+1", `{"minimum":9007199254740993}`,
			[]string{`9007199254740993`, `9007199254740994`}, []string{`9007199254740992`, `1`}},
		{"maximum 2^53+1", `{"maximum":9007199254740993}`,
			[]string{`9007199254740993`, `9007199254740992`}, []string{`9007199254740994`}},
		{"exclusiveMinimum 2^53+1", `{"exclusiveMinimum":9007199254740993}`,
			[]string{`9007199254740994`}, []string{`9007199254740993`, `9007199254740992`}},
		{"exclusiveMaximum 2^53+1", `{"exclusiveMaximum":9007199254740993}`,
			[]string{`9007199254740992`}, []string{`9007199254740993`}},
		{"rewritten bound beside its other kind", `{"maximum":9007199254740993,"exclusiveMaximum":1e30}`,
			[]string{`9007199254740993`}, []string{`9007199254740994`}},
		{"draft-04 boolean exclusiveMaximum", `{"maximum":9007199254740993,"exclusiveMaximum":true}`,
			[]string{`9007199254740992`}, []string{`9007199254740993`}},
		{"a fraction float64 does not hold", `{"maximum":0.1,"minimum":-0.1}`,
			[]string{`0`, `0.1`, `-0.1`}, []string{`1`, `-1`, `0.2`}},
		{"integer multipleOf", `{"multipleOf":3}`,
			[]string{`9`, `3000000000000000`}, []string{`10`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, notes := prepared(t, `{"type":"object","properties":{"a":`+c.prop+`}}`)
			assert.Empty(t, notes, "exact: no warning")
			for _, d := range c.accept {
				assert.NoError(t, r.Validate(map[string]any{"a": exactDoc(t, d)}), "should accept %s", d)
			}
			for _, d := range c.refuse {
				assert.Error(t, r.Validate(map[string]any{"a": exactDoc(t, d)}), "should refuse %s", d)
			}
		})
	}
}

// What cannot be compared exactly refuses the schema, naming the keyword
// and the path; it is never left out of validation with a warning.
func TestPrepareRefusesInexactNumbers(t *testing.T) {
	for _, c := range []struct{ prop, kw, want string }{
		{`{"enum":[1,100000000000000000000]}`, "enum", "beyond 64 bits"},
		{`{"const":-1e20}`, "const", "beyond 64 bits"},
		{`{"enum":[[1e400]]}`, "enum", "beyond float64's range"},
		{`{"const":{"x":[18446744073709551616]}}`, "const", "beyond 64 bits"},
		{`{"minimum":9007199254740993.5}`, "minimum", "reads as 9007199254740994"},
		{`{"maximum":36028797018963971}`, "maximum", "reads as 36028797018963968"},
		{`{"multipleOf":9007199254740993}`, "multipleOf", "reads as 9007199254740992"},
		{`{"minimum":1e-1001}`, "minimum", "too long"},
		{`{"enum":[1e999999999]}`, "enum", "beyond float64's range"},
	} {
		t.Run(c.prop, func(t *testing.T) {
			_, _, err := Prepare([]byte(`{"type":"object","properties":{"p":{"items":` + c.prop + `}}}`))
			require.ErrorIs(t, err, ErrSchema)
			assert.Contains(t, err.Error(), "at /properties/p/items: "+c.kw+": ")
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

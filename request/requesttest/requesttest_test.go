package requesttest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeT records failures instead of failing the test.
type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Errorf(format string, a ...any) { f.errs = append(f.errs, fmt.Sprintf(format, a...)) }

func TestAssertStablePrefix(t *testing.T) {
	a := []byte(`{"model":"m","tools":[{"name":"x","description":"d"}],"messages":[{"role":"user","content":"1"}]}`)
	b := []byte(`{"model":"m","tools":[{"name":"x","description":"d"}],"messages":[{"role":"user","content":"1"},{"role":"assistant","content":"2"}]}`)
	c := []byte(`{"model":"m","tools":[{"name":"x","description":"D"}],"messages":[{"role":"user","content":"1"}]}`)
	ft := &fakeT{TB: t}
	assert.True(t, AssertStablePrefix(ft, a, b))
	assert.Empty(t, ft.errs)
	assert.False(t, AssertStablePrefix(ft, a, b, c))
	require.Len(t, ft.errs, 1)
	assert.Contains(t, ft.errs[0], "body 2")
	assert.Contains(t, ft.errs[0], "tools[0].description")
}

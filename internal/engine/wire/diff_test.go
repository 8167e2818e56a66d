package wire

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiffNamesPath(t *testing.T) {
	base := `{"model":"m","tools":[{"type":"function","function":{"name":"a","description":"one"}},{"type":"function","function":{"name":"b","description":"two"}}],"messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name, b, path string
	}{
		{"description", `{"model":"m","tools":[{"type":"function","function":{"name":"a","description":"one"}},{"type":"function","function":{"name":"b","description":"twX"}}],"messages":[{"role":"user","content":"hi"}]}`, "tools[1].function.description"},
		{"model", `{"model":"n","tools":[]}`, "model"},
		{"message", `{"model":"m","tools":[{"type":"function","function":{"name":"a","description":"one"}},{"type":"function","function":{"name":"b","description":"two"}}],"messages":[{"role":"user","content":"ho"}]}`, "messages[0].content"},
		{"extra member", `{"model":"m","tools":[{"type":"function","function":{"name":"a","description":"one"}},{"type":"function","function":{"name":"b","description":"two"}}],"messages":[{"role":"user","content":"hi"}],"x":1}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Diff([]byte(base), []byte(tc.b))
			require.NotNil(t, d)
			assert.Equal(t, tc.path, d.Path)
			assert.Equal(t, base[:d.Offset], tc.b[:d.Offset])
			assert.NotEqual(t, base[d.Offset:d.Offset+1], tc.b[d.Offset:min(len(tc.b), d.Offset+1)])
			assert.Contains(t, d.String(), fmt.Sprint(d.Offset))
		})
	}
	assert.Nil(t, Diff([]byte(base), []byte(base)))
}

func TestPrefixLen(t *testing.T) {
	tests := []struct{ body, prefix string }{
		{`{"model":"m","tools":[],"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}`, `{"model":"m","tools":[],"messages":[{"role":"system","content":"s"},`},
		{`{"model":"m","system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[]}]}`, `{"model":"m","system":[{"type":"text","text":"s"}],"messages":[`},
		{`{"model":"m","instructions":"i","input":[]}`, `{"model":"m","instructions":"i","input":[`},
	}
	for _, tc := range tests {
		n := PrefixLen([]byte(tc.body))
		require.GreaterOrEqual(t, n, 0)
		assert.Equal(t, tc.prefix, tc.body[:n])
	}
	assert.Equal(t, -1, PrefixLen([]byte(`[1]`)))
	assert.Equal(t, -1, PrefixLen([]byte(`{"model":"m"}`)))
}

func ExampleDiff() {
	a := []byte(`{"tools":[{"function":{"name":"Read","description":"Read a file."}}]}`)
	b := []byte(`{"tools":[{"function":{"name":"Read","description":"Read a file!"}}]}`)
	d := Diff(a, b)
	fmt.Println(d.Offset, d.Path)
	// Output: 63 tools[0].function.description
}

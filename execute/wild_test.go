package execute_test

import (
	"encoding/json"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

// Schemas as real MCP servers write them, called through the dispatcher:
// each construct is validated in its ECMA-262 or older-draft meaning.
func TestWildSchemaConstructsThroughTheDispatcher(t *testing.T) {
	c := newCounter()
	tool := func(name, schema string) registry.Tool {
		return registry.Tool{Name: name, Description: name + ".", RawSchema: json.RawMessage(schema), DeferLoading: registry.DeferFalse, Handler: c.handler(name)}
	}
	reg := registry.New(nil)
	require.NoError(t, reg.Register(
		tool("chinese", `{"type":"object","properties":{"name":{"type":"string","pattern":"^[\\u4e00-\\u9fa5]+$"}},"required":["name"]}`),
		tool("read_pdf", `{"type":"object","properties":{"page":{"type":"integer","minimum":0,"exclusiveMinimum":true}},"required":["page"]}`),
		tool("defs", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"mode":{"$ref":"#/definitions/mode"}},"required":["mode"],"definitions":{"mode":{"type":"string","enum":["fast","slow"]}}}`),
		tool("password", `{"type":"object","properties":{"pw":{"type":"string","minLength":8,"pattern":"^(?=.*\\d)"}},"required":["pw"]}`),
	))
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	s := newTestSession("s", plan, toolsearch.NewLoadedSet())
	d := mustNew(t, nil)
	cases := []struct {
		tool, args string
		ok         bool
	}{
		{"chinese", `{"name":"中文名字"}`, true},
		{"chinese", `{"name":"Latin"}`, false},
		{"read_pdf", `{"page":1}`, true},
		{"read_pdf", `{"page":0}`, false},
		{"defs", `{"mode":"fast"}`, true},
		{"defs", `{"mode":"medium"}`, false},
		{"password", `{"pw":"abcdefgh"}`, true}, // the lookahead is not validated: a warning says so
		{"password", `{"pw":"short"}`, false},   // the schema's other keywords are
	}
	for _, tc := range cases {
		before := c.count(tc.tool)
		res := d.Call(t.Context(), s, tc.tool, json.RawMessage(tc.args))
		assert.Equal(t, tc.ok, !res.IsError, "%s %s: %s", tc.tool, tc.args, res.Text)
		assert.Equal(t, tc.ok, c.count(tc.tool) == before+1, "%s %s ran", tc.tool, tc.args)
	}
	pw, _ := reg.Snapshot().Tool("password")
	require.Len(t, pw.Warnings, 1)
	assert.Equal(t, "pattern", pw.Warnings[0].Keyword)
	assert.Contains(t, string(pw.ModelSchema()), `"pattern":"^(?=.*\\d)"`, "the provider still sees the pattern")
	assert.Equal(t, pw.Warnings, reg.Warnings())
}

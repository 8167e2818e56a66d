package execute_test

import (
	"context"
	"encoding/json"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/registry"
)

// Violations inside nested objects and arrays carry the pointer of the
// innermost failing value, so the model can fix exactly that member.
func TestValidationNestedPointers(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"edits":{"type":"array","items":{"$ref":"#/$defs/edit"}},
		"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]},
		"opts":{"type":"object","properties":{"depth":{"type":"integer","minimum":1},"tags":{"type":"array","items":{"type":"string"}}},"required":["depth"]},
		"mode":{"type":"string","enum":["a","b"]}},
		"$defs":{"edit":{"type":"object","properties":{"line":{"type":"integer"},"a/b":{"type":"string"}},"required":["line"]}}}`
	r := registry.New(nil)
	require.NoError(t, r.Register(registry.Tool{Name: "Patch", RawSchema: json.RawMessage(schema),
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			return registry.Result{Text: "ok"}, nil
		}}))
	plan, err := (&deferral.Policy{}).Plan(r.Snapshot(), deferral.View{})
	require.NoError(t, err)
	s := newTestSession("s", plan, toolsearch.NewLoadedSet())
	d := mustNew(t, &execute.Options{})

	tests := []struct{ params, want string }{
		{`{"edits":[{"line":1},{"line":"2"}]}`, `- /edits/1/line: type: 2 has type "string"`},
		{`{"edits":[{"line":1},{}]}`, `- /edits/1: required: missing properties: ["line"]`},
		{`{"edits":[{"line":1,"a/b":3}]}`, `- /edits/0/a~1b: type`},
		{`{"pair":["x","y"]}`, `- /pair/1: type: y has type "string", want "integer"`},
		{`{"opts":{"depth":0}}`, `- /opts/depth: minimum`},
		{`{"opts":{"depth":2,"tags":["a",5]}}`, `- /opts/tags/1: type`},
		{`{"opts":{}}`, `- /opts: required`},
		{`{"mode":"c","opts":{"depth":"deep"}}`, `- /opts/depth: type`},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			res := d.Call(context.Background(), s, "Patch", json.RawMessage(tt.params))
			require.True(t, res.IsError, res.Text)
			assert.Contains(t, res.Text, tt.want)
		})
	}
	// Several violations keep their declared order, each at its own depth.
	res := d.Call(context.Background(), s, "Patch", json.RawMessage(`{"mode":"c","opts":{"depth":"deep"}}`))
	assert.Less(t, strings.Index(res.Text, "- /opts/depth"), strings.Index(res.Text, "- /mode"))
}

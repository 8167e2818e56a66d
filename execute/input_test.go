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

// Every malformed call is a model-facing error that shows a correct call;
// nothing runs and nothing panics.
func TestBadInput(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200)
	huge := `{"file_path":"` + strings.Repeat("x", execute.DefaultMaxParamsBytes) + `"}`
	tests := []struct {
		name string
		tool string
		args string
		want []string
	}{
		{"params not an object", registry.DeferExecuteName, `{"tool_name":"Read","params":[1,2]}`, []string{"params is an array", `defer_execute {"tool_name":"Read","params":{"file_path":"<string>"}}`}},
		{"params a string holding JSON", registry.DeferExecuteName, `{"tool_name":"Read","params":"{\"file_path\":\"a\"}"}`, []string{"string holding JSON", `{"file_path":"a"} without the surrounding quotes`}},
		{"params null", registry.DeferExecuteName, `{"tool_name":"Read","params":null}`, []string{"params is null", "correct call"}},
		{"params a number", registry.DeferExecuteName, `{"tool_name":"Read","params":3}`, []string{"params is a number"}},
		{"params beside tool_name", registry.DeferExecuteName, `{"tool_name":"Read","file_path":"a"}`, []string{`must go inside "params"`, `"file_path"`}},
		{"extra keys", registry.DeferExecuteName, `{"tool_name":"Read","params":{"file_path":"a"},"why":"x"}`, []string{`unexpected keys "why"`}},
		{"missing tool_name", registry.DeferExecuteName, `{"params":{"file_path":"a"}}`, []string{`"tool_name" is missing`, `defer_execute {"tool_name":"<exact tool name`}},
		{"tool_name not a string", registry.DeferExecuteName, `{"tool_name":7,"params":{}}`, []string{`"tool_name" must be a non-empty string`}},
		{"empty tool_name", registry.DeferExecuteName, `{"tool_name":"","params":{}}`, []string{`"tool_name" must be a non-empty string`}},
		{"unknown tool_name", registry.DeferExecuteName, `{"tool_name":"Raed","params":{}}`, []string{`Unknown tool "Raed"`, `"Read"`}},
		{"tool_name with junk", registry.DeferExecuteName, `{"tool_name":"../Read\u0000","params":{}}`, []string{"Unknown tool"}},
		{"recursion defer_execute", registry.DeferExecuteName, `{"tool_name":"defer_execute","params":{"tool_name":"Read","params":{}}}`, []string{"cannot call defer_execute"}},
		{"recursion tool_search", registry.DeferExecuteName, `{"tool_name":"tool_search","params":{"queries":["x"]}}`, []string{"cannot call tool_search", "Call tool_search directly"}},
		{"args null", registry.DeferExecuteName, `null`, []string{"needs arguments", "correct call"}},
		{"invalid UTF-8 in a key", registry.DeferExecuteName, "{\"tool_name\":\"Read\",\"params\":{\"\xfe\":1}}", []string{"not valid UTF-8", "Nothing was run"}},
		{"invalid UTF-8 in a direct call", "Read", "{\"file_path\":\"a\xff\"}", []string{"not valid UTF-8"}},
		{"args empty", registry.DeferExecuteName, ``, []string{"needs arguments"}},
		{"args not JSON", registry.DeferExecuteName, `{"tool_name":"Read",`, []string{"not a valid JSON object"}},
		{"args an array", registry.DeferExecuteName, `["Read"]`, []string{"are a array"}},
		{"args a string holding JSON", registry.DeferExecuteName, `"{\"tool_name\":\"Read\",\"params\":{\"file_path\":\"a\"}}"`, []string{"string holding JSON"}},
		{"duplicate keys", registry.DeferExecuteName, `{"tool_name":"Read","tool_name":"Bash","params":{}}`, []string{"duplicate key"}},
		{"deep params", registry.DeferExecuteName, `{"tool_name":"Read","params":` + deep + `}`, []string{"nest deeper than"}},
		{"huge params", registry.DeferExecuteName, `{"tool_name":"Read","params":` + huge + `}`, []string{"over the limit"}},
		{"direct: null", "Read", `null`, []string{"params is null", "Read with arguments"}},
		{"direct: not json", "Read", `not json`, []string{"arguments are not valid JSON", "Read with arguments"}},
		{"direct: string JSON", "Read", `"{\"file_path\":\"a\"}"`, []string{"string holding JSON"}},
		{"direct: array", "Read", `[]`, []string{"params is an array"}},
		{"direct: invalid JSON", "Read", `{"file_path":`, []string{"arguments are not valid JSON"}},
		{"direct: deep", "Read", deep, []string{"nest deeper than"}},
		{"direct: huge", "Read", huge, []string{"over the limit"}},
		{"direct: unknown", "Reed", `{}`, []string{`Unknown tool "Reed"`, `"Read"`}},
		{"direct: long name", strings.Repeat("R", 5000), `{}`, []string{"Unknown tool", "..."}},
	}
	e := newEnv(t, deferral.View{})
	var evs events
	d := mustNew(t, &execute.Options{Observer: execute.OnEvent(evs.add)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r registry.Result
			require.NotPanics(t, func() {
				r = d.Call(context.Background(), e.session("s"), tt.tool, json.RawMessage(tt.args))
			})
			assert.True(t, r.IsError)
			for _, w := range tt.want {
				assert.Contains(t, r.Text, w)
			}
			assert.Less(t, len(r.Text), 2000, "an error answer stays short whatever the input")
		})
	}
	assert.Zero(t, e.c.total())
	assert.NotContains(t, evs.kinds(), execute.EventAllowed)
}

// Missing params mean {}: a tool without required fields runs.
func TestMissingParamsIsEmptyObject(t *testing.T) {
	c := newCounter()
	reg := registry.New(nil)
	require.NoError(t, reg.Register(registry.Tool{Name: "Now", Handler: c.handler("Now"), DeferLoading: registry.DeferTrue}))
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	e := &env{reg: reg, plan: plan, c: c}
	d := mustNew(t, nil)
	r := d.Call(context.Background(), e.session("s", "Now"), registry.DeferExecuteName, json.RawMessage(`{"tool_name":"Now"}`))
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, "{}", c.last("Now"))
	r = d.Call(context.Background(), e.session("s", "Now"), "Now", nil)
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, 2, c.count("Now"))
}

// Validation lists every violation with its pointer, in a deterministic
// order, with the expected schema and a correct call.
func TestValidation(t *testing.T) {
	tests := []struct {
		name   string
		tool   string
		params string
		want   []string // in this order
	}{
		{"missing required", "Edit", `{"file_path":"a"}`, []string{"- /old_string: required property is missing", "- /new_string: required property is missing"}},
		{"wrong type", "Read", `{"file_path":3}`, []string{`- /file_path: type: 3 has type "integer", want "string"`}},
		{"several", "Read", `{"file_path":true,"offset":-1,"limit":0}`, []string{"- /file_path: type", "- /offset: minimum", "- /limit: minimum"}},
		{"unknown property", "Read", `{"file_path":"a","pages":"1-3","colour":1}`, []string{`- /colour: unknown property; the schema allows "file_path", "offset", "limit"`, "- /pages: unknown property"}},
		{"enum", "Grep", `{"pattern":"x","output_mode":"lines"}`, []string{"- /output_mode: enum"}},
		{"pointer escaping", "Read", `{"file_path":"a","a/b~c":1}`, []string{"- /a~1b~0c: unknown property"}},
		{"missing and wrong", "Read", `{"offset":"x"}`, []string{"- /file_path: required property is missing", "- /offset: type"}},
	}
	e := newEnv(t, deferral.View{})
	var evs events
	d := mustNew(t, &execute.Options{Observer: execute.OnEvent(evs.add)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := d.Call(context.Background(), e.session("s"), tt.tool, json.RawMessage(tt.params))
			require.True(t, r.IsError)
			at := 0
			for _, w := range tt.want {
				i := strings.Index(r.Text[at:], w)
				require.GreaterOrEqual(t, i, 0, "want %q after byte %d in:\n%s", w, at, r.Text)
				at += i + len(w)
			}
			tl, _ := e.reg.Snapshot().Tool(tt.tool)
			assert.Contains(t, r.Text, "Expected schema:\n"+string(tl.ModelSchema()))
			assert.Contains(t, r.Text, "A correct call looks like: "+tt.tool+" with arguments {")
			// The same input gives the same bytes every time.
			for range 5 {
				assert.Equal(t, r.Text, d.Call(context.Background(), e.session("s"), tt.tool, json.RawMessage(tt.params)).Text)
			}
		})
	}
	assert.Zero(t, e.c.total())
	ev, ok := evs.find(execute.EventInvalid)
	require.True(t, ok)
	assert.Equal(t, "/old_string", ev.Pointer)
}

// Defaults are applied; the model's own bytes pass through otherwise.
func TestDefaultsAndPassThrough(t *testing.T) {
	e := newEnv(t, deferral.View{})
	d := mustNew(t, nil)
	s := e.session("s")
	r := d.Call(context.Background(), s, "Grep", json.RawMessage(`{"pattern":"func  main", "path":"."}`))
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, `{"pattern":"func  main","path":".","output_mode":"files_with_matches"}`, e.c.last("Grep"))

	// No defaults, no injected fields: the handler gets the model's bytes,
	// digits of a big integer included.
	raw := `{"file_path":"a", "offset":12345678901234567890}`
	r = d.Call(context.Background(), s, "Read", json.RawMessage(raw))
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, raw, e.c.last("Read"))
}

// A schema's top-level anyOf is left out of the Anthropic wire schema (the
// API refuses it there), so the dispatcher is what enforces it: a call
// that meets none of its branches is refused with the reason, one that
// meets a branch runs.
func TestTopLevelAnyOfValidated(t *testing.T) {
	reg := registry.New(nil)
	ran := 0
	require.NoError(t, reg.Register(registry.Tool{
		Name: "either", Description: "Needs a path or an id.",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"id":{"type":"string"}},"anyOf":[{"required":["path"]},{"required":["id"]}]}`),
		Handler: func(context.Context, json.RawMessage) (registry.Result, error) {
			ran++
			return registry.Result{Text: "ok"}, nil
		},
	}))
	plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{})
	require.NoError(t, err)
	s := newTestSession("s", plan, toolsearch.NewLoadedSet())
	d := mustNew(t, nil)
	r := d.Call(context.Background(), s, "either", json.RawMessage(`{}`))
	require.True(t, r.IsError)
	assert.Contains(t, r.Text, "anyOf")
	assert.Zero(t, ran)
	r = d.Call(context.Background(), s, "either", json.RawMessage(`{"id":"7"}`))
	require.False(t, r.IsError, r.Text)
	assert.Equal(t, 1, ran)
}

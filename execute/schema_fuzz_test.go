package execute_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/toolshelf/toolshelf/internal/engine/toolsearch"
	"strings"
	"testing"
	"unicode/utf8"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/execute"
	"github.com/toolshelf/toolshelf/internal/engine/registryx"
	"github.com/toolshelf/toolshelf/internal/engine/tagsafe"
	"github.com/toolshelf/toolshelf/registry"
)

// FuzzSchemaCall feeds an arbitrary schema through registration and, when
// the registry accepts it, a call with arbitrary arguments, directly and
// through defer_execute (issue 11). Nothing may crash the process (the
// cycles of testdata/fuzz/FuzzSchemaCall made jsonschema-go's validator
// overflow the stack) or panic inside the pipeline; a rejected schema is
// rejected with the registry's sentinels; every result is valid UTF-8 with
// no live wrapper tag; a handler only ever receives one JSON object with
// no duplicate keys, and never an injected value the host did not give.
func FuzzSchemaCall(f *testing.F) {
	for _, s := range []struct{ schema, args string }{
		{`{"type":"object","$ref":"#"}`, `{}`},
		{`{"type":"object","allOf":[{"$ref":"#"}]}`, `{"a":1}`},
		{`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}}`, `{"a":{"b":1}}`},
		{`{"type":"object","properties":{"v":{"type":"string"},"a":{"type":"object","properties":{"b":{"allOf":[{"$ref":"#/properties/v"}]}}}}}`, `{"a":{"b":5}}`},
		{`{"type":"object","properties":{"n":{"$ref":"#"}}}`, `{"n":{"n":{"n":{}}}}`},
		{`{"type":"object","properties":{"path":{"type":"string","pattern":"^/sandbox/"}}}`, `{"path":"/etc/passwd","path":"/sandbox/a"}`},
		{`{"type":"object","properties":{"id":{"type":"integer","maximum":9007199254740992}}}`, `{"id":9007199254740993}`},
		{`{"type":"object","properties":{"token":{"type":"string"}},"if":{"required":["m"]},"then":{"properties":{"token":{"maxLength":1}}}}`, `{"m":1}`},
		{`{"type":"object","properties":{"a":{"type":"string","default":"x"}}}`, `{}`},
	} {
		f.Add([]byte(s.schema), []byte(s.args))
	}
	const secret = "sk-fuzz-secret-0xC0FFEE"
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		var got []json.RawMessage
		handler := func(_ context.Context, p json.RawMessage) (registry.Result, error) {
			got = append(got, append(json.RawMessage(nil), p...))
			return registry.Result{Text: string(p)}, nil
		}
		tool := registry.Tool{Name: "T", RawSchema: schema, Handler: handler, DeferLoading: registry.DeferFalse}
		if strings.Contains(string(schema), `"token"`) {
			tool.Injected = []string{"token"}
		}
		reg := registry.New(nil)
		if err := reg.Register(tool); err != nil {
			if !errors.Is(err, registryx.ErrInvalidSchema) && !errors.Is(err, registryx.ErrTooLarge) {
				t.Fatalf("rejected without a schema sentinel: %v", err)
			}
			return
		}
		plan, err := (&deferral.Policy{}).Plan(reg.Snapshot(), deferral.View{})
		if err != nil {
			t.Fatal(err)
		}
		s := newTestSession("s", plan, toolsearch.NewLoadedSet())
		var pipelinePanic string
		d, err := execute.New(&execute.Options{
			Inject: func(context.Context, string, string) (map[string]any, error) {
				return map[string]any{"token": secret}, nil
			},
			Observer: execute.OnEvent(func(ev execute.Event) {
				if strings.HasPrefix(ev.Detail, "panic in the dispatch pipeline") {
					pipelinePanic = ev.Detail
				}
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []struct {
			name string
			args []byte
		}{{"T", args}, {registry.DeferExecuteName, append(append([]byte(`{"tool_name":"T","params":`), args...), '}')}} {
			res := d.Call(context.Background(), s, call.name, call.args)
			if pipelinePanic != "" {
				t.Fatalf("%s", pipelinePanic)
			}
			if !utf8.ValidString(res.Text) {
				t.Fatalf("result is not valid UTF-8: %q", res.Text)
			}
			if i := tagsafe.Index(res.Text); i >= 0 {
				t.Fatalf("live tag in result: %q", res.Text)
			}
			if res.IsError && strings.Contains(res.Text, secret) {
				t.Fatalf("an error quotes the injected value: %q", res.Text)
			}
		}
		for _, p := range got {
			var obj map[string]any
			if err := json.Unmarshal(p, &obj); err != nil || obj == nil {
				t.Fatalf("handler got %q, not a JSON object: %v", p, err)
			}
			if dup := duplicateKey(p); dup != "" {
				t.Fatalf("handler got %q with key %q twice", p, dup)
			}
		}
	})
}

// duplicateKey returns a key that appears twice in one object of the JSON
// value b, or "".
func duplicateKey(b []byte) string {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				stack = append(stack, &frame{obj: v == '{', keys: map[string]bool{}, key: v == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].key = true
			}
			continue
		case string:
			if top != nil && top.obj && top.key {
				if top.keys[v] {
					return v
				}
				top.keys[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true
		}
	}
}

func TestDuplicateKeyHelper(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":2}`:                 "",
		`{"a":1,"a":2}`:                 "a",
		`{"a":{"x":1},"b":{"x":2}}`:     "",
		`{"a":{"x":1,"x":2}}`:           "x",
		`{"a":[{"k":"a"},{"k":"a"}]}`:   "",
		`{"a":[1,{"y":1,"y":1}],"b":1}`: "y",
		`{"a":{"b":1},"a":2}`:           "a",
		`{"s":"a","t":"s"}`:             "",
	} {
		if got := duplicateKey([]byte(in)); got != want {
			t.Errorf("duplicateKey(%s) = %q, want %q", in, got, want)
		}
	}
}

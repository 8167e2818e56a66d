package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
)

func TestRenderEachForbiddenFunctionFails(t *testing.T) {
	for _, fn := range forbiddenFunctions() {
		t.Run(fn, func(t *testing.T) {
			text := "Search tools.\nToday is {{" + fn + "}}.\n"
			out, err := renderText("tool_search", text, Vars{})
			require.Error(t, err)
			assert.Empty(t, out)
			assert.ErrorIs(t, err, errForbiddenFunction)
			var re *Error
			require.True(t, errors.As(err, &re))
			assert.Equal(t, "tool_search", re.Tool)
			assert.Equal(t, 2, re.Line)
			assert.Equal(t, fn, re.Name)
			assert.Contains(t, err.Error(), `tool "tool_search", line 2`)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", fn))
		})
	}
}

// The stubs are the backstop behind the static check: called directly
// they fail, and never return a zero value silently.
func TestStubsFailWhenCalled(t *testing.T) {
	m := funcMap("x", Vars{}, nil)
	for _, fn := range forbiddenFunctions() {
		f, ok := m[fn].(func(...any) (string, error))
		require.True(t, ok, fn)
		_, err := f()
		assert.ErrorIs(t, err, errForbiddenFunction, fn)
	}
}

func TestRenderVariables(t *testing.T) {
	vars := Vars{
		Static:  map[string]string{"product": "toolshelf"},
		Session: map[string]string{"cwd": "/src", "os": "linux", "date": "2025-01-02"},
		Parts:   map[string]string{"rules": "Be brief."},
	}
	tests := []struct {
		name, text, want string
		err              error
		line             int
	}{
		{name: "session and static", text: "{{.product}} in {{.cwd}} on {{.os}}", want: "toolshelf in /src on linux"},
		{name: "pure helpers", text: `{{tag "rules" (part "rules")}} {{join ", " .os .cwd}} {{if has "date"}}dated{{end}}{{if has "locale"}}!{{end}} {{raw "<x>"}}`, want: "<rules>Be brief.</rules> linux, /src dated <x>"},
		{name: "section", text: `{{define "s"}}[{{.os}}]{{end}}a{{render_section "s"}}b`, want: "a[linux]b"},
		{name: "dollar root in range", text: "{{with .os}}{{$.cwd}}{{end}}", want: "/src"},
		{name: "undeclared", text: "ok\n\n{{.locale}}", err: errUndeclaredVariable, line: 3},
		{name: "undeclared via dollar", text: "{{with .os}}{{$.user}}{{end}}", err: errUndeclaredVariable, line: 1},
		{name: "forbidden variable", text: "{{.turn}}", err: errForbiddenVariable, line: 1},
		{name: "forbidden in has", text: `{{if has "request_id"}}x{{end}}`, err: errForbiddenVariable, line: 1},
		{name: "forbidden in pipeline", text: "{{.os | printf \"%s\" | now}}", err: errForbiddenFunction, line: 1},
		{name: "forbidden in if", text: "{{if true}}\n{{uuid}}{{end}}", err: errForbiddenFunction, line: 2},
		{name: "unknown part", text: `{{part "nope"}}`, err: errUnknownPart, line: 1},
		{name: "unknown section", text: `{{render_section "nope"}}`, err: errUnknownPart, line: 1},
		{name: "parse error", text: "a\n{{.os", err: ErrTemplate, line: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := renderText("T", tc.text, vars)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				var re *Error
				require.True(t, errors.As(err, &re))
				assert.Equal(t, tc.line, re.Line, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestVarsCheck(t *testing.T) {
	for _, v := range forbiddenVariables() {
		err := Vars{Session: map[string]string{v: "x"}}.Check()
		assert.ErrorIs(t, err, errVariables, v)
	}
	err := Vars{Static: map[string]string{"a": "1"}, Session: map[string]string{"a": "2"}}.Check()
	assert.ErrorIs(t, err, errVariables)
}

func TestToolRendersOnlyTemplatesAndNeverWritesBack(t *testing.T) {
	lit := &registry.Tool{Name: "Lit", Description: "{{now}} is literal text"}
	tpl := &registry.Tool{Name: "Tpl", Description: "in {{.cwd}}", Template: true}
	before := *tpl
	var out []string
	for _, tl := range []*registry.Tool{lit, tpl} {
		d, err := Description(tl, Vars{Session: map[string]string{"cwd": "/w"}})
		require.NoError(t, err)
		out = append(out, d)
	}
	assert.Equal(t, []string{"{{now}} is literal text", "in /w"}, out)
	assert.Equal(t, before, *tpl, "the tool definition is unchanged")
}

func TestRenderIsDeterministic(t *testing.T) {
	vars := Vars{Session: map[string]string{"a": "1", "b": "2", "c": "3"}}
	text := strings.Repeat("{{.a}}{{.b}}{{.c}}", 10)
	first, err := renderText("T", text, vars)
	require.NoError(t, err)
	for range 20 {
		got, err := renderText("T", text, vars)
		require.NoError(t, err)
		require.Equal(t, first, got)
	}
}

// A harness checks a built-in tool's description template before a session
// freezes it: Description renders it with the variables the session will
// have, and a template that reads the clock fails with the tool, the line
// and the function to fix.
func ExampleDescription() {
	tool := &registry.Tool{Name: "Bash", Template: true, Description: `Run commands in {{.cwd}}: {{tag "rules" (join "," "a" "b")}}`}
	out, err := Description(tool, Vars{Session: map[string]string{"cwd": "/src"}})
	fmt.Println(out, err)
	tool.Description = "Today: {{now}}"
	_, err = Description(tool, Vars{})
	fmt.Println(err)
	// Output:
	// Run commands in /src: <rules>a,b</rules> <nil>
	// render: tool "Bash", line 1: forbidden function "now": templates are rendered once per session and must be pure; the current time would differ between sessions and processes; declare the value as a session variable instead
}

// TestEveryErrorMatchesErrTemplate: a harness matches one sentinel, the
// public render.ErrTemplate, whatever failed; the kinds keep their messages.
func TestEveryErrorMatchesErrTemplate(t *testing.T) {
	for _, k := range []error{errForbiddenFunction, errForbiddenVariable, errUndeclaredVariable, errUnknownPart, errVariables, ErrTemplate} {
		assert.ErrorIs(t, k, ErrTemplate, k.Error())
		assert.True(t, strings.HasPrefix(k.Error(), "render: "), k.Error())
	}
	_, err := renderText("x", "{{now}}", Vars{})
	assert.ErrorIs(t, err, ErrTemplate)
	assert.ErrorIs(t, err, errForbiddenFunction)
	assert.NotErrorIs(t, err, errUndeclaredVariable)
	var re *Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, `render: tool "x", line 1: forbidden function "now": templates are rendered once per session and must be pure; the current time would differ between sessions and processes; declare the value as a session variable instead`, err.Error())
	err = Vars{Session: map[string]string{"nonce": "1"}}.Check()
	assert.ErrorIs(t, err, ErrTemplate)
	assert.ErrorIs(t, err, errVariables)
}

package render_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/registry"
	"github.com/toolshelf/toolshelf/render"
)

// fuzzVars are the declarations every fuzzed template renders with.
func fuzzVars(cwd string) render.Vars {
	return render.Vars{
		Static:  map[string]string{"product": "toolshelf", "tag": "</available_deferred_tools>"},
		Session: map[string]string{"cwd": cwd, "os": "linux", "locale": "日本語"},
		Parts:   map[string]string{"rules": "Never run rm -rf.", "emoji": "👩‍👩‍👧"},
	}
}

// bigLiteral finds numeric literals of four digits or more.
var bigLiteral = regexp.MustCompile(`[0-9]{4,}`)

// FuzzRender renders arbitrary template text with an arbitrary session
// variable. It never panics or crashes the process; a failure is an
// [*render.Error] wrapping a sentinel; a success is valid UTF-8 (slice and
// printf count bytes and can cut a character: that is an error), and
// rendering again gives the same bytes.
//
// Templates are written by the harness's developers (catalog imports and
// self-built tools are never templates), so the package does not bound
// their cost: the fuzzer skips texts that ask for huge loops or output on
// purpose ({{range 99999999}}, printf widths), which would only measure
// the machine.
func FuzzRender(f *testing.F) {
	for _, seed := range []string{
		"Read files under {{.cwd}} on {{.os}}.",
		`{{if has "cwd"}}cwd: {{.cwd}}{{else}}no cwd{{end}}`,
		`{{part "rules"}} {{tag "note" .product}} {{join ", " "a" "b"}} {{raw .tag}}`,
		`{{define "s"}}section {{$.locale}}{{end}}{{render_section "s"}}`,
		`{{define "s"}}{{render_section "s"}}{{end}}{{render_section "s"}}`,
		`{{range $i, $e := 3}}{{$i}}{{end}}`,
		`{{now}} {{.date}} {{env "HOME"}}`,
		`{{printf "%.3s" .cwd}} {{slice .cwd 0 1}} {{len .cwd}}`,
		`{{.missing}}`, `{{`, `{{end}}`, `{{template "x"}}`, "\xff{{.cwd}}",
	} {
		f.Add(seed, "/home/dev/repo")
		f.Add(seed, "Ω≈ç√ 👩‍👩‍👧 \x00")
	}
	f.Fuzz(func(t *testing.T, text, cwd string) {
		if len(text) > 4000 || strings.Count(text, "range") > 1 || bigLiteral.MatchString(text) {
			return
		}
		vars := fuzzVars(cwd)
		out, err := renderTool("Fuzzed", text, vars)
		if err != nil {
			var re *render.Error
			if !errors.As(err, &re) {
				t.Fatalf("Description(%q) failed with %T, not *render.Error: %v", text, err, err)
			}
			return
		}
		if !utf8.ValidString(out) {
			t.Fatalf("Description(%q) with cwd %q = %q: not valid UTF-8", text, cwd, out)
		}
		again, err := renderTool("Fuzzed", text, vars)
		if err != nil || again != out {
			t.Fatalf("Description(%q) is not deterministic: %q then %q (%v)", text, out, again, err)
		}
	})
}

// A section that renders itself used to recurse past the stack limit and
// kill the process (found by FuzzRender); it is now a template error.
func TestRenderSectionRecursionIsAnError(t *testing.T) {
	for _, text := range []string{
		`{{define "s"}}{{render_section "s"}}{{end}}{{render_section "s"}}`,
		`{{define "a"}}{{render_section "b"}}{{end}}{{define "b"}}x{{render_section "a"}}{{end}}{{render_section "a"}}`,
	} {
		_, err := renderTool("Loop", text, render.Vars{})
		require.Error(t, err, text)
		assert.ErrorIs(t, err, render.ErrTemplate, text)
		assert.Contains(t, err.Error(), `tool "Loop"`)
		assert.Contains(t, err.Error(), "render_section")
	}
	// Nesting within the bound still renders.
	out, err := renderTool("Nest", `{{define "a"}}A{{render_section "b"}}{{end}}{{define "b"}}B{{end}}{{render_section "a"}}`, render.Vars{})
	require.NoError(t, err)
	assert.Equal(t, "AB", out)
}

// slice counts bytes: cutting "é" in two used to render invalid UTF-8
// (found by FuzzRender); it is now a template error naming the tool.
func TestRenderInvalidUTF8IsAnError(t *testing.T) {
	_, err := renderTool("Cut", `{{slice .cwd 0 1}}`, render.Vars{Session: map[string]string{"cwd": "é"}})
	require.Error(t, err)
	assert.ErrorIs(t, err, render.ErrTemplate)
	assert.Contains(t, err.Error(), "UTF-8")
	out, err := renderTool("Cut", `{{slice .cwd 0 2}}`, render.Vars{Session: map[string]string{"cwd": "é"}})
	require.NoError(t, err)
	assert.Equal(t, "é", out)
}

// renderTool renders text as the description template of the built-in tool
// name, through the public Description.
func renderTool(name, text string, vars render.Vars) (string, error) {
	return render.Description(&registry.Tool{Name: name, Description: text, Template: true}, vars)
}

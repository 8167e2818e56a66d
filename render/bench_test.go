package render

import (
	"strings"
	"testing"
	"text/template"
)

// benchTemplate is a tool description template of the kind the README
// shows: session variables, a static part, conditionals, a tag.
const benchTemplate = `Run shell commands in {{.cwd}} on {{.os}} (locale {{.locale}}).
{{part "safety"}}
{{if eq .os "linux"}}Use bash syntax.{{else}}Use the platform's shell.{{end}}
{{if has "allowed"}}{{tag "allowed" .allowed}}{{end}}
Dates are written as in {{.locale}}; today's date comes from the conversation, never from here.`

func benchVars() Vars {
	return Vars{
		Session: map[string]string{"cwd": "/home/dev/repo", "os": "linux", "locale": "en-GB"},
		Static:  map[string]string{"allowed": "git,go,make,rg,sed"},
		Parts:   map[string]string{"safety": "Never run commands that delete files outside the working directory."},
	}
}

// BenchmarkRender renders one description template, once per session
// (sessions with equal inputs share the result through request.Cache),
// against text/template parsing and executing the same text with the same
// data and a plain part function: the checks for forbidden functions and
// variables are what the difference buys. The render sub-benchmark reports
// render/text-template.
func BenchmarkRender(b *testing.B) {
	vars := benchVars()
	want, err := renderText("Bash", benchTemplate, vars)
	if err != nil {
		b.Fatal(err)
	}
	funcs := template.FuncMap{
		"part": func(n string) string { return vars.Parts[n] },
		"has":  func(n string) bool { _, ok := vars.Static[n]; return ok },
		"tag":  func(name, body string) string { return "<" + name + ">" + body + "</" + name + ">" },
	}
	plain := func() string {
		t := template.Must(template.New("Bash").Option("missingkey=error").Funcs(funcs).Parse(benchTemplate))
		var sb strings.Builder
		if err := t.Execute(&sb, vars.data()); err != nil {
			b.Fatal(err)
		}
		return sb.String()
	}
	if got := plain(); got != want {
		b.Fatalf("the baseline renders differently:\n%s\n---\n%s", got, want)
	}
	var base float64
	b.Run("text-template", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			plain()
		}
		base = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := renderText("Bash", benchTemplate, vars); err != nil {
				b.Fatal(err)
			}
		}
		if base > 0 {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "render/text-template")
		}
	})
}
